"""`manage.py verify_log GAME`: check a game's hash chain, that its seq is gapless, and that
every snapshot agrees with the fold from the first event."""

from django.core.management.base import BaseCommand, CommandError

from games import audit
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
        self.stdout.write(f"game {game}: {target.seq} events, chain intact, snapshots agree")
