"""The embedded default's mail server: each message written whole as an .eml file, so a person
can open it with any mail program (Django's file backend appends messages to log files)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from django.conf import settings
from django.core.mail.backends.base import BaseEmailBackend


class EmlFileBackend(BaseEmailBackend):
    def __init__(self, file_path: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.directory = Path(file_path or settings.EMAIL_FILE_PATH)

    def send_messages(self, messages) -> int:
        self.directory.mkdir(parents=True, exist_ok=True)
        for message in messages:
            named = message.extra_headers.get("Message-ID", "").strip("<>").split("@")[0]
            name = f"{''.join(c for c in named if c.isalnum() or c in '.-_') or uuid.uuid4().hex}.eml"
            temporary = self.directory / f".{name}.tmp"
            temporary.write_bytes(message.message().as_bytes(linesep="\n"))
            os.replace(temporary, self.directory / name)  # whole or not at all, for a reader polling the folder
        return len(messages)
