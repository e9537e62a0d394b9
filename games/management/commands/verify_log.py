"""`manage.py verify_log GAME`: check a game's hash chain (public content and, with the seed,
every private payload), that its seq is gapless, that the installed rules fold the version its
log was recorded under, that the log folds, and that every snapshot agrees with that fold.
Every problem found is reported, not only the first."""

from django.core.management.base import BaseCommand, CommandError

import rules
from games import audit, store
from games.models import Game


class Command(BaseCommand):
    help = "Verify the hash chain, gapless seq and snapshots of a game's event log."

    def add_arguments(self, parser):
        parser.add_argument("game", type=int, help="the game's id")

    def handle(self, *args, game: int, **options):
        try:
            target = Game.objects.get(pk=game)
        except Game.DoesNotExist:
            raise CommandError(f"there is no game {game}") from None
        problems = audit.verify_game(target)
        if problems:
            raise CommandError(f"game {game}: " + "; ".join(problems))
        checked = rules.get(target.rules)
        self.stdout.write(
            f"game {game}: {target.seq} events, chain intact, snapshots agree; recorded under "
            f"{target.rules} version {store.recorded_version(target)}, checked against version {checked.version}"
        )
