"""`manage.py mail_gateway`: the SMTP gateway for replies (mail.gateway), until stopped."""

from __future__ import annotations

import signal
import threading

from django.conf import settings
from django.core.management.base import BaseCommand

from mail.gateway import controller


class Command(BaseCommand):
    help = "Run the SMTP gateway that takes play-by-email replies."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=settings.SCRAPYARD_SMTP_PORT)

    def handle(self, *args, host: str, port: int, **options):
        stop = threading.Event()
        for name in (signal.SIGINT, signal.SIGTERM):
            signal.signal(name, lambda *_: stop.set())
        gateway = controller(host, port)
        gateway.start()
        self.stdout.write(f"SMTP gateway for play-by-email replies on {host}:{port} (mail for play+<token>@{settings.SCRAPYARD_MAIL_DOMAIN})")
        self.stdout.flush()
        try:
            stop.wait()
        finally:
            gateway.stop()
