"""The embedded default's broker: kombu's filesystem transport, with each message appearing whole.

Kombu writes a message straight into its final file, and a worker polling the folder can take
the file between its creation and its first byte: it reads nothing, fails to decode it and stops
(the message, already moved away, is lost with it; the supervisor restarts the worker, and the
sweeps resend what was lost). Here a message is written under a name no queue reads and renamed
into place, which is atomic: a reader sees no file or the whole message. Selected in settings as
the `scrapyard-files://` broker URL (`register`, from `project.celery`).
"""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        writing = os.path.join(self.data_folder_out, f"~{uuid.uuid4()}")  # no queue reads "~..."
        try:
            with open(writing, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(writing, final)
        except OSError as error:
            raise ChannelError(f"cannot add {final!r} to the broker folder") from error


class Transport(filesystem.Transport):
    Channel = Channel


def register() -> None:
    """Make `scrapyard-files://` name this transport (before Celery opens a connection)."""
    TRANSPORT_ALIASES["scrapyard-files"] = "project.broker:Transport"
