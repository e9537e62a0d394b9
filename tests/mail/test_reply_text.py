"""How a reply's lines are read: actions above the quote, `;` and lines both separate actions, a
conditional line keeps its own `;`, chat by `say` or below `chat:`, signatures left out."""

from __future__ import annotations

from mail import reply_text


def test_a_turn_of_several_actions_by_semicolons_and_lines():
    read = reply_text.read("1 #10; 1\n\n forest grow 2,5 \n\nOn Mon, 23 Nov 2026, Scrapyard wrote:\n> 1. old\n")
    assert read.actions() == ["1 #10", "1", "forest grow 2,5"] and read.chat == []


def test_a_conditional_line_keeps_its_own_lines():
    assert reply_text.read("if 3 then 5; if 4 then 1").actions() == ["if 3 then 5; if 4 then 1"]


def test_chat_by_say_and_below_the_marker_and_signatures_are_skipped():
    read = reply_text.read("> quoted first\n\n2\nsay good luck\nChat:\nNice fire.\nSee you.\n\nSent from my phone\n")
    assert read.actions() == ["2"] and read.chat == ["good luck", "Nice fire.", "See you."]
    assert reply_text.read("1\n-- \nann\n").actions() == ["1"]
    assert reply_text.read("say").chat == [] and reply_text.read("sayonara").actions() == ["sayonara"]
