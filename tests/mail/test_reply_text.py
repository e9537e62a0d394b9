"""How a reply's lines are read: actions above the quote, `;` and lines both separate actions, a
conditional line keeps its own `;`, chat by `say` or below `chat:`, signatures left out."""

from __future__ import annotations

import pytest

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


# The quote as mail programs introduce it: each case is the new text, then the program's own lines.
QUOTED_BY = {
    "Gmail, its introduction wrapped": "On Mon, Nov 23, 2026 at 10:00 AM Scrapyard <play+abc@mail.example>\nwrote:\n\n> 1. old\n",
    "Gmail in Dutch": "Op ma 23 nov 2026 om 10:00 schreef Scrapyard <play+abc@mail.example>:\n\n> 1. old\n",
    "Gmail in Dutch, wrapped": "Op ma 23 nov 2026 om 10:00 schreef Scrapyard <\nplay+abc@mail.example>:\n\n> 1. old\n",
    "Apple Mail in Dutch": "Op 23 nov. 2026 om 10:00 heeft Scrapyard <play+abc@mail.example> het volgende geschreven:\n\n> 1. old\n",
    "Gmail in German": "Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb Scrapyard <play+abc@mail.example>:\n> 1. old\n",
    # Outlook quotes nothing with ">": a rule, the old mail's headers, then the old mail as it was.
    "Outlook": ("________________________________\nFrom: Scrapyard <play+abc@mail.example>\nSent: Monday, November 23, "
                "2026 10:00 AM\nTo: olga@players.example\nSubject: Scrapyard game 4\n\n  1. forest grow 2,5\n"
                "Reply to: play+abc@mail.example\n"),
    "Outlook on a phone": ("From: Scrapyard <play+abc@mail.example>\nSent: Monday, November 23, 2026 10:00:00 AM\n"
                           "To: olga@players.example\n\n  1. forest grow 2,5\nReply to: play+abc@mail.example\n"),
    "Outlook in Dutch": ("Van: Scrapyard <play+abc@mail.example>\nVerzonden: maandag 23 november 2026 10:00\n"
                         "Aan: olga@players.example\nOnderwerp: Scrapyard game 4\n\n  1. forest grow 2,5\n"),
}


@pytest.mark.parametrize("program", QUOTED_BY)
def test_the_quote_a_mail_program_adds_is_not_read_as_actions_or_chat(program):
    read = reply_text.read(f"3 #17\n\n{QUOTED_BY[program]}")
    assert read.actions() == ["3 #17"] and read.chat == []
    # Below a chat marker the old mail (with the seat's reply address in it) must not reach the chat.
    read = reply_text.read(f"chat:\nWell played.\n\n{QUOTED_BY[program]}")
    assert read.actions() == [] and read.chat == ["Well played."]


def test_lines_of_ones_own_that_look_like_headers_are_kept():
    read = reply_text.read("chat:\nFrom: the start I liked your fire.\nOn Mondays I play slowly, wrote: nobody\n")
    assert read.chat == ["From: the start I liked your fire.", "On Mondays I play slowly, wrote: nobody"]
