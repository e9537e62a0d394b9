"""`manage.py ratings_rebuild`: every rating from scratch, from the log of finished games."""

import time

from django.core.management.base import BaseCommand

from competition import rating_service


class Command(BaseCommand):
    help = "Rebuild every rating from the finished rated games, in the order they finished."

    def handle(self, *args, **options):
        started = time.perf_counter()
        counts = rating_service.ratings_rebuild()
        self.stdout.write(f"{counts['games']} finished rated games, {counts['changes']} rating changes, "
                          f"{counts['ratings']} ratings in {time.perf_counter() - started:.1f} s")
