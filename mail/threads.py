"""One thread per game and recipient, as mail programs build threads: every mail of a game to an
account carries the same subject (`compose.thread_subject`), a `References` chain that starts at
the thread's root and runs through the mails sent before it, and an `In-Reply-To` naming the mail
it follows (for an answer, the player's own mail it answers).

The root is an id no mail carries, the same for every mail of the (game, account): the thread
holds together even when a mail in the middle is lost or deleted. Worked out when the mail is
written (each attempt alike), from the mails made before it, so nothing more is stored."""

from __future__ import annotations

from django.conf import settings

from mail.models import Outgoing, OutgoingStatus

CHAIN = 10  # the References header names the root and at most this many mails before
UNTHREADED = ("digest", "verify")


def root_id(user_id: int, game_id: int) -> str:
    return f"<game-{game_id}.to-{user_id}.thread@{settings.SCRAPYARD_MAIL_DOMAIN}>"


def headers(mail: Outgoing, answered: str = "") -> dict[str, str]:
    """`In-Reply-To` and `References` for one mail; `answered` is the Message-ID of the player's
    mail this one answers, if any."""
    if mail.game_id is None or mail.kind in UNTHREADED:
        return {"In-Reply-To": answered, "References": answered} if answered else {}
    # Only mails that went (or go) out on their own: one held for a digest, dropped or failed
    # never reached the reader, and In-Reply-To must name a mail the reader has.
    earlier = list(Outgoing.objects.filter(user_id=mail.user_id, game_id=mail.game_id, pk__lt=mail.pk,
                                           status__in=(OutgoingStatus.SENT, OutgoingStatus.PENDING))
                   .exclude(kind__in=UNTHREADED).order_by("-pk").values_list("message_id", flat=True)[:CHAIN])
    chain = [root_id(mail.user_id, mail.game_id), *reversed(earlier)]
    if answered and answered not in chain:
        chain.append(answered)
    found = {"References": " ".join(chain)}
    if answered or earlier:
        found["In-Reply-To"] = chain[-1]
    return found
