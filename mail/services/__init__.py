"""Play by email: notices out, replies in. One module per concern; every name below is
importable as `mail.services.<name>`, as callers use it.

Out. Mail is a consumer of the log (`mail.consumer`, on `consumers.framework`): after each
commit the framework's fan-out makes, for every seated account with a confirmed address, the
mails it is owed (game started, your turn, game over: `outbound.account_notices_make`), under a
per-(account, game) cursor lock, once per (account, game, seq, kind): the key is unique. An
account whose address is not confirmed has its news held (`outbound.address_confirmed` sends
what is still relevant once it is). Each mail is composed when made, from the same per-seat
selectors as the API, and sent after the commit by a worker that leases it first (`sending`);
SMTP errors are retried with the framework's waits, and its sweep sends whatever a lost message
left behind, the daily digests and the deadline warnings. `forced` plays a seat's only move for
an account that chose it.

In. A reply reaches `inbound.inbound_store` from the SMTP gateway or a provider's webhook; it is
stored before anything else (nothing a player sent is lost) and then read by
`inbound.inbound_handle`: a bounce (`bounces`), a command to the server's own address
(`mail.commands`), or a reply to a seat's address (`replies`): the address's token names the
seat, the From must be the account's own address too, and the first line that is not a quote is
the command. Every reply gets an answer mail.

Neither. `addresses`: reply, bounce, unsubscribe and verification addresses and links;
`preferences`: how an account wants its mail, and whether its address is confirmed.
"""

from mail.services.addresses import (
    BOUNCE_ADDRESS,
    COMMAND_ADDRESS,
    PLAY_ADDRESS,
    UNSUBSCRIBE_SALT,
    VERIFY_SALT,
    address_of,
    address_rotate,
    address_verify,
    bounce_address,
    bounce_mac,
    command_address,
    command_mac,
    command_owner,
    reply_address,
    server_address,
    unsubscribe,
    unsubscribe_url,
    verify_url,
)
from mail.services.bounces import bounce_by_address, bounce_hard, bounce_read
from mail.services.forced import FORCED, FORCED_LOOK_BACK, forced_moves_missed, forced_moves_play, forced_moves_wanted
from mail.services.inbound import (
    HANDLE_INBOUND,
    MAX_MESSAGE_BYTES,
    SENDER_WINDOW,
    MailRefused,
    account_allowed,
    carries_token,
    confirmed_account,
    inbound_handle,
    inbound_list,
    inbound_store,
    inbound_unread_handle,
    is_server_address,
    parts_check,
    recipient_allowed,
    recipient_known,
    sender_allowed,
    untokened_allowed,
)
from mail.services.outbound import (
    ANSWER,
    ANSWER_WINDOW,
    BOUNCED,
    DEADLINE_WARNING,
    DIGEST,
    FAST_STEP_SECONDS,
    GAME_OVER,
    GAME_STARTED,
    LOOK_BACK,
    MAIL,
    PROPOSAL,
    PROPOSED,
    VERIFY,
    YOUR_TURN,
    account_notices_make,
    deadline_warnings_note,
    digests_send,
    fan_out,
    next_digest_time,
    notices,
    outgoing_make,
    seat_context,
    too_fast_for_mail,
)
from mail.services.preferences import (
    SENT_WHEN,
    address_confirmed,
    address_verified,
    preference_of,
    settings_of,
    settings_update,
)
from mail.services.replies import (
    DONE_CODES,
    GUARD,
    LIFE_ACTIONS,
    LIFE_COMMANDS,
    QUOTE_INTRO,
    answer_key,
    body_text,
    first_command,
    life_do,
    reply_handle,
)
from mail.services.rotation import (
    ADDRESS_NEW,
    ADDRESS_REPLACED,
    addresses_replace,
    replaced_note,
    retired,
    retired_handle,
    seat_address_replace,
)
from mail.services.sending import CONTROL, LEASE, clean_header, due_send, outgoing_send

__all__ = [
    "ADDRESS_NEW",
    "ADDRESS_REPLACED",
    "addresses_replace",
    "replaced_note",
    "retired",
    "retired_handle",
    "seat_address_replace",
    "ANSWER",
    "ANSWER_WINDOW",
    "BOUNCED",
    "BOUNCE_ADDRESS",
    "COMMAND_ADDRESS",
    "CONTROL",
    "DEADLINE_WARNING",
    "DIGEST",
    "DONE_CODES",
    "FAST_STEP_SECONDS",
    "FORCED",
    "FORCED_LOOK_BACK",
    "GAME_OVER",
    "GAME_STARTED",
    "GUARD",
    "HANDLE_INBOUND",
    "MAX_MESSAGE_BYTES",
    "LEASE",
    "LIFE_ACTIONS",
    "LIFE_COMMANDS",
    "LOOK_BACK",
    "MAIL",
    "MailRefused",
    "PLAY_ADDRESS",
    "PROPOSAL",
    "PROPOSED",
    "QUOTE_INTRO",
    "SENDER_WINDOW",
    "SENT_WHEN",
    "UNSUBSCRIBE_SALT",
    "VERIFY",
    "VERIFY_SALT",
    "YOUR_TURN",
    "address_of",
    "address_rotate",
    "address_verified",
    "address_verify",
    "answer_key",
    "body_text",
    "bounce_address",
    "command_address",
    "command_mac",
    "command_owner",
    "bounce_by_address",
    "bounce_hard",
    "bounce_mac",
    "bounce_read",
    "account_allowed",
    "carries_token",
    "confirmed_account",
    "clean_header",
    "account_notices_make",
    "address_confirmed",
    "deadline_warnings_note",
    "digests_send",
    "due_send",
    "fan_out",
    "first_command",
    "forced_moves_missed",
    "forced_moves_play",
    "forced_moves_wanted",
    "inbound_handle",
    "inbound_list",
    "inbound_store",
    "inbound_unread_handle",
    "life_do",
    "next_digest_time",
    "notices",
    "outgoing_make",
    "outgoing_send",
    "preference_of",
    "is_server_address",
    "parts_check",
    "recipient_allowed",
    "recipient_known",
    "reply_address",
    "reply_handle",
    "seat_context",
    "sender_allowed",
    "server_address",
    "settings_of",
    "settings_update",
    "too_fast_for_mail",
    "unsubscribe",
    "unsubscribe_url",
    "untokened_allowed",
    "verify_url",
]

