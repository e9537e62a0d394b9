"""`manage.py trf_import FILE --organiser NAME --rules ID --time-control JSON`: a Swiss seeded from
a FIDE TRF16 file (`tournament_service.tournament_import_trf`)."""

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from apikit.errors import ServiceError
from competition import tournament_service
from rules.errors import RulesError


class Command(BaseCommand):
    help = ("Continue a two-player Swiss from a TRF16 file: each player line names an account, the file's rounds "
            "become finished tables, and the next round is paired at once.")

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--organiser", required=True, help="the organiser's username")
        parser.add_argument("--rules", required=True, help="the game, e.g. terrafex")
        parser.add_argument("--time-control", required=True, help='JSON, as a game\'s, e.g. {"kind": "fischer", ...}')
        parser.add_argument("--rated", action="store_true")

    def handle(self, *args, file, organiser, rules, time_control, rated, **options):
        user = get_user_model().objects.filter(username=organiser).first()
        if user is None:
            raise CommandError(f"no account named {organiser}")
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:  # names must be usernames, which are UTF-8 here
            raise CommandError(f"{file} is not UTF-8 text (byte {error.start}): save it as UTF-8") from None
        except OSError as error:
            raise CommandError(f"cannot read {file}: {error.strerror}") from None
        try:
            tournament = tournament_service.tournament_import_trf(
                user=user, text=text, rules_id=rules, time_control=json.loads(time_control), rated=rated)
        except (ServiceError, RulesError, json.JSONDecodeError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"tournament {tournament.pk}: {tournament.name}, round {tournament.current_round} paired")
