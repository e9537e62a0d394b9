"""The embedded default's broker: kombu's filesystem transport, with each message appearing whole.

Kombu writes a message straight into its final file, and a worker polling the folder can take
the file between its creation and its first byte: it reads nothing, fails to decode it and stops
(the message, already moved away, is lost with it; the supervisor restarts the worker, and the
sweeps resend what was lost). Here a message is written under a name no queue reads and renamed
into place, which is atomic: a reader sees no file or the whole message. A reader takes one by
renaming it, inside the same folder, to a name no queue reads: one atomic rename, so of the two
workers of a queue's pair (deploy/supervisord.conf) exactly one has it. Kombu's own reader moves it
to the temporary folder, which across file systems (a tmpfs /tmp) is a copy and then a removal,
not one atomic step.
Selected in settings as the `scrapyard-files://` broker URL (`register`, from `project.celery`).
"""

from __future__ import annotations

import os
import uuid
from queue import Empty
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads


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


    def _get(self, queue):
        wanted = f"{queue}.msg"
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.partition(".")[2] != wanted:
                continue
            taken = os.path.join(self.data_folder_in, f"~{uuid.uuid4()}")  # no queue reads "~..."
            try:
                os.rename(os.path.join(self.data_folder_in, name), taken)
            except OSError:  # the other worker of the pair took it first
                continue
            try:
                with open(taken, "rb") as file:
                    payload = file.read()
                os.remove(taken)
            except OSError as error:
                raise ChannelError(f"cannot read {name!r} from the broker folder") from error
            return loads(bytes_to_str(payload))
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel


def register() -> None:
    """Make `scrapyard-files://` name this transport (before Celery opens a connection)."""
    TRANSPORT_ALIASES["scrapyard-files"] = "project.broker:Transport"
