"""What `analysis` tells the doors beside it once an analysis is stored (after the commit).

`analysis_done(game_id)`: mail sends the marked moves to those who asked for them by mail. Sent
again by the sweep while such a mail is still owed, so a receiver must be idempotent.
"""

from django.dispatch import Signal

analysis_done = Signal()  # keyword arguments: game_id
