"""How a reply's lines are read: actions above the quote, `;` and lines both separate actions, a
conditional line keeps its own `;`, chat by `say` or below `chat:`, signatures left out."""

from __future__ import annotations

import email
import email.message
import email.policy

import pytest

from mail import reply_text
from mail.services import replies


def test_a_turn_of_several_actions_by_semicolons_and_lines():
    read = reply_text.read("1 #10; 1\n forest grow 2,5 \n1\n\nOn Mon, 23 Nov 2026, Scrapyard wrote:\n> 1. old\n")
    assert read.actions() == ["1 #10", "1", "forest grow 2,5", "1"] and read.chat == [] and read.below == []
    # Below a blank line, lines are moves only if the game reads them so (mail.services.replies).
    read = reply_text.read("1 #10; 1\n\n forest grow 2,5; 1 \n\nOn Mon, 23 Nov 2026, Scrapyard wrote:\n> 1. old\n")
    assert read.actions() == ["1 #10", "1"] and read.actions_below() == ["forest grow 2,5", "1"]


def test_the_words_below_the_actions_block_are_kept_apart_from_the_actions():
    """A Dutch reply as people write one: the move, a blank line, a greeting, a name, the quote.
    "Succes!" and "Bob" were read as the second and third actions."""
    read = reply_text.read("2 #7\n\nSucces!\nBob\n\nOp ma 23 nov 2026 om 10:00 schreef Scrapyard <play+abc@mail.example>:\n"
                           "> 1. old\n")
    assert read.actions() == ["2 #7"] and read.first == "2 #7" and read.below == ["Succes!", "Bob"] and read.chat == []
    read = reply_text.read("1 #10\n1\n1\n\nGroeten,\n\nBob\n-- \nBob Jansen, Utrecht\n")  # a turn one action a line
    assert read.actions() == ["1 #10", "1", "1"] and read.below == ["Groeten,", "Bob"]


def test_chat_and_conditional_lines_below_the_block_are_read_as_such():
    read = reply_text.read("say hoi\n\n2 #7\n\nsay good game\nThanks!\n\nchat:\nSee you.\n")
    assert read.actions() == ["2 #7"] and read.chat == ["hoi", "good game", "See you."] and read.below == ["Thanks!"]
    read = reply_text.read("if 3 then 5\n\nif 4 then 1\n\nIf you want a rematch, tell me.\nAnn\n")
    assert read.conditional() == "if 3 then 5; if 4 then 1"
    assert read.below == ["If you want a rematch, tell me.", "Ann"]


def test_a_reply_whose_first_line_is_no_move_keeps_it_as_its_first_action():
    """Its refusal names it: a greeting above the move is read as the reply's first action."""
    read = reply_text.read("Succes!\n\n2 #7\n")
    assert read.first == "Succes!" and read.actions() == ["Succes!"] and read.below == ["2 #7"]


def test_an_html_reply_has_a_blank_line_between_all_its_lines_so_below_is_for_the_game_to_read():
    html = "<div>3 #17</div><div>1</div><div><br></div><div>Succes!</div><div>Bob</div>"
    read = reply_text.read(replies.body_text(_html_only(html)))
    assert read.actions() == ["3 #17"] and read.below == ["1", "Succes!", "Bob"]


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


def _html_only(html: str):
    message = email.message.EmailMessage()
    message["From"] = "olga@players.example"
    message.set_content(html, subtype="html")
    return email.message_from_bytes(message.as_bytes(), policy=email.policy.default)


# HTML-only replies as mail programs write them: a head with styles, &nbsp; between words,
# entities, the old mail in a blockquote (with or without an introduction).
HTML_REPLIES = {
    "Outlook": ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">'
                '<style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head>'
                '<body dir="ltr"><div style="font-family: Calibri">3&nbsp;#17</div><div>say caf&eacute; &amp; cake</div>'
                '<hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg"><b>From:</b> Scrapyard &lt;play+abc@mail.example&gt;'
                '<br><b>Sent:</b> Monday, November 23, 2026 10:00 AM<br></div><div>  1. forest grow 2,5</div></body></html>'),
    "Gmail": ('<div dir="ltr">3 #17<div>say caf&eacute; &amp; cake</div></div><br><div class="gmail_quote">'
              '<div dir="ltr" class="gmail_attr">On Mon, Nov 23, 2026 at 10:00 AM Scrapyard &lt;play+abc@mail.example&gt; wrote:<br>'
              '</div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">  1. forest grow 2,5<br></blockquote></div>'),
    "a blockquote alone": ('<html><head><title>Re: Scrapyard game 4</title></head><body><p>3 #17</p><p>say caf&eacute; &amp; cake'
                           '</p><blockquote type="cite"><pre>  1. forest grow 2,5\nReply to: play+abc@mail.example</pre>'
                           '</blockquote></body></html>'),
}


@pytest.mark.parametrize("program", HTML_REPLIES)
def test_an_html_only_reply_is_read_as_its_writer_sees_it(program):
    read = reply_text.read(replies.body_text(_html_only(HTML_REPLIES[program])))
    assert read.actions() == ["3 #17"] and read.chat == ["café & cake"]


def test_a_format_flowed_reply_is_read_with_its_lines_joined_again():
    """Thunderbird and Apple Mail send plain text as format=flowed (RFC 3676): a line the writer
    typed whole goes out cut at 72 columns, each piece but the last ending in a space."""
    conditional = "if forest grow 2,5 then mountain start 0,1 then fire small then place fire 3,3"
    raw = ("From: olga@players.example\r\nSubject: Re: Scrapyard game 4\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
           "if forest grow 2,5 then mountain start 0,1 then fire small then place \r\nfire 3,3\r\n\r\n"
           "chat:\r\nA long remark that my mail program cut at seventy-two columns, as \r\nThunderbird does.\r\n"
           " From the start I liked it.\r\n\r\n"
           "On 23/11/2026 10:00, Scrapyard wrote:\r\n> Olga, it is your turn in Scrapyard game 4, at \r\n> move 17.\r\n")
    message = email.message_from_bytes(raw.encode(), policy=email.policy.default)
    read = reply_text.read(replies.body_text(message))
    assert read.actions() == [conditional]
    assert read.chat == ["A long remark that my mail program cut at seventy-two columns, as Thunderbird does.",
                         "From the start I liked it."]  # space-stuffed: its first space is the program's


def test_delsp_flowed_text_joins_without_the_added_space():
    raw = ("From: olga@players.example\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=UTF-8; format=flowed; delsp=yes\r\n\r\n"
           "say a word cut in two: Scrap \r\nyard\r\n")
    message = email.message_from_bytes(raw.encode(), policy=email.policy.default)
    assert reply_text.read(replies.body_text(message)).chat == ["a word cut in two: Scrapyard"]


# Replies written below the quote, as Thunderbird writes them by default and as netiquette asks.
BOTTOM_POSTED = {
    "Thunderbird": "On 23/11/2026 10:00, Scrapyard wrote:\n> Olga, it is your turn.\n>    1. fire small\n\n",
    "Gmail, wrapped": "On Mon, Nov 23, 2026 at 10:00 AM Scrapyard <play+abc@mail.example>\nwrote:\n\n> Olga, it is your turn.\n\n",
    "Dutch": "Op 23-11-2026 om 10:00 schreef Scrapyard:\n> Olga, je bent aan de beurt.\n\n",
}


@pytest.mark.parametrize("program", BOTTOM_POSTED)
def test_a_reply_written_below_the_quote_is_read(program):
    read = reply_text.read(f"{BOTTOM_POSTED[program]}3 #17\nsay Your turn.\n\n-- \nOlga\n")
    assert read.actions() == ["3 #17"] and read.chat == ["Your turn."]
    assert replies.first_command(f"{BOTTOM_POSTED[program]}games\n") == "games"


def test_an_introduction_with_no_quote_under_it_still_ends_the_reply():
    # Outlook's "-----Original Message-----" is followed by the old mail unquoted: nothing below is the writer's.
    read = reply_text.read("-----Original Message-----\nFrom: Scrapyard\n\n  1. fire small\n")
    assert read.actions() == [] and read.chat == []


def test_a_reply_in_a_charset_python_does_not_know_or_none_is_read_as_utf8():
    """"unknown-8bit" is what some servers label 8-bit text they could not name; scripts and old
    programs send UTF-8 with no charset at all. Read as nothing, the reply got the help and its
    move was not played; read as ASCII, its accents became question marks."""
    unknown = ("From: olga@players.example\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=unknown-8bit\r\n"
               "Content-Transfer-Encoding: 8bit\r\n\r\n3 #17\r\nsay Bien joué\r\n")
    unnamed = "From: olga@players.example\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\n3 #17\r\nsay Bien joué\r\n"
    for raw in (unknown, unnamed):
        read = reply_text.read(replies.body_text(email.message_from_bytes(raw.encode(), policy=email.policy.default)))
        assert read.actions() == ["3 #17"] and read.chat == ["Bien joué"]


@pytest.mark.parametrize("subject", ["Re: games", "RE: Re: games", "Antw: games", "AW: games", "Fwd: Re: games", "SV: games"])
def test_a_command_in_the_subject_is_read_under_every_reply_prefix(subject):
    from mail import commands

    assert commands._subject_command(subject) == "games"


@pytest.mark.parametrize("signed", ["Verstuurd vanaf mijn iPhone", "Verzonden vanaf mijn Galaxy", "Verzonden met de Mail-app voor Windows",
                                    "Download Outlook voor iOS", "Von meinem iPhone gesendet", "Gesendet von Outlook für Android"])
def test_what_phones_add_under_a_reply_in_dutch_and_german_is_not_read(signed):
    read = reply_text.read(f"3 #17\nchat:\nGood game.\n\n{signed}\n")
    assert read.actions() == ["3 #17"] and read.chat == ["Good game."]


def test_chat_with_its_text_on_the_markers_line_is_chat():
    """"chat: nice move" was read as a move's notation, refused, and the line never reached the chat."""
    read = reply_text.read("3 #17\nchat: Nice move.\nSee you.\n")
    assert read.actions() == ["3 #17"] and read.chat == ["Nice move.", "See you."]


class _Watched(list):
    """A reply's lines that count how many of them are read, and refuse to be copied."""

    def __init__(self, *args):
        super().__init__(*args)
        self.read = 0

    def __getitem__(self, key):
        assert not isinstance(key, slice), "the rest of the reply was copied"
        self.read += 1
        return super().__getitem__(key)


def test_whether_a_quote_starts_at_a_line_reads_no_further_than_it_must():
    """Asked at every line of a reply, a look at all the lines below it made a long reply of
    short lines cost the square of its length (24,000 lines: 0.6 s)."""
    lines = _Watched(["x", *[""] * 1000, "y"])
    assert not reply_text.quote_starts(lines, 0) and lines.read <= 4  # its own, and the next for a wrapped introduction
    header = _Watched(["From: Scrapyard <play@example.org>", "", "Sent: Monday", *["z"] * 1000])
    assert reply_text.quote_starts(header, 0) and header.read <= 8  # not the 1,000 below
