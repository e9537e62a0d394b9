"""What `games` tells the apps beside it, which it never imports (`hooks`, and any later door).

`events_recorded(game_id, seq)` is sent once the transaction that appended events up to `seq`
has committed, in the process that wrote them. A receiver must be quick and must not fail the
write (it runs after the commit, robustly): it sends work to a queue, and keeps its own sweep
for a message that never arrives, since a process can die between the commit and the send.
"""

from django.dispatch import Signal

# From the writer, also what it knew at the commit: `bots` (a bot seat is to act) and
# `lines_waiting` (a conditional line may wait: `games.projection`), which spare the consumers of
# the log (`consumers.framework.news`) a question per move.
events_recorded = Signal()  # keyword arguments: game_id, seq, and the hints bots, lines_waiting
# Sent likewise once an invitation to a private game was made, declined, cancelled or accepted:
# the invitee's and the inviter's account streams and webhooks tell it (`games.services.lobby`).
invitation_changed = Signal()  # keyword arguments: game_id, invitee_id, inviter_id, status
# Sent likewise once the transaction that finished a game has committed (after its
# `events_recorded`): ratings and tournaments follow finished games, not every move.
game_finished = Signal()  # keyword arguments: game_id
