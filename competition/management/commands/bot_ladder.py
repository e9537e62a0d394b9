"""`manage.py bot_ladder --creator NAME`: a round of rated games among the server's bots, so each
bot level earns a rating that says how strong it is (`competition.bot_ladder`)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

import bots
import rules
from competition import bot_ladder


class Command(BaseCommand):
    help = "Create rated games among the server's bots (every pair of levels, each seat once); the workers play and rate them."

    def add_arguments(self, parser):
        parser.add_argument("--creator", required=True, help="the account named as the games' creator (it only watches)")
        parser.add_argument("--rules", action="append", dest="rules_ids", help="a rules id (repeatable); default every two-player game")
        parser.add_argument("--bot", action="append", metavar="NAME:LEVEL",
                            help="an entrant (repeatable); default every bot at every level")
        parser.add_argument("--rounds", type=int, default=1)

    def handle(self, *args, creator, rules_ids, bot, rounds, **options):
        account = get_user_model().objects.filter(username=creator).first()
        if account is None:
            raise CommandError(f"there is no account {creator!r}")
        chosen = [_entrant(text) for text in bot] if bot else None
        try:
            made = [game for _ in range(max(rounds, 0))
                    for game in bot_ladder.ladder_round(creator=account, rules_ids=rules_ids, chosen=chosen)]
        except rules.UnknownRules as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"{len(made)} rated bot games created; the bot workers play them and the ratings follow")


def _entrant(text: str) -> tuple[str, int]:
    name, _, level = text.partition(":")
    try:
        spec = bots.get(name)
        return spec.name, spec.check_level(int(level) if level else spec.default_level)
    except (bots.BotError, ValueError) as error:
        raise CommandError(f"--bot {text!r}: {getattr(error, 'message', error)}") from None
