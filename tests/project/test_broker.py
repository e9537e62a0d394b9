"""The embedded default's broker writes each message whole before any worker can see it, and
gives each message to one worker of the two that consume its queue."""

from __future__ import annotations

import builtins
import errno
import os
import threading

from kombu import Connection

from project import broker


def _connection(folder) -> Connection:
    broker.register()
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder), "control_folder": str(folder)}
    return Connection("scrapyard-files://", transport_options=options)


def test_a_message_appears_whole_under_its_queues_name_and_nothing_else_is_left(tmp_path):
    with _connection(tmp_path) as connection:
        queue = connection.SimpleQueue("deadlines")
        queue.put({"game": 7, "seq": 12})
        files = [path.name for path in tmp_path.iterdir() if not path.name.endswith(".exchange")]
        assert len(files) == 1 and files[0].endswith(".deadlines.msg")  # no half-written file left
        assert queue.get(timeout=1).payload == {"game": 7, "seq": 12}
        queue.close()


def test_a_message_still_being_written_is_not_taken(tmp_path):
    (tmp_path / "~being-written").write_bytes(b"")  # the name a message has until it is whole
    with _connection(tmp_path) as connection:
        channel = connection.default_channel
        channel.queue_declare("deadlines")
        try:
            channel._get("deadlines")
        except Exception as empty:
            assert type(empty).__name__ == "Empty"
        else:
            raise AssertionError("took a message that was still being written")


class _Watched:
    """A file being written; before each write it notes the queue files a reader could take."""

    def __init__(self, file, folder, seen):
        self.file, self.folder, self.seen = file, folder, seen

    def write(self, data):
        self.seen.extend(path.name for path in self.folder.iterdir() if path.name.endswith(".msg"))
        return self.file.write(data)

    def __getattr__(self, name):
        return getattr(self.file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()


def test_no_reader_can_see_a_message_before_it_is_whole(tmp_path, monkeypatch):
    seen_while_writing: list[str] = []
    real_open = builtins.open

    def watching_open(path, mode="r", *args, **kwargs):
        file = real_open(path, mode, *args, **kwargs)
        if "w" in mode and str(path).startswith(str(tmp_path)):
            return _Watched(file, tmp_path, seen_while_writing)
        return file

    with _connection(tmp_path) as connection:
        queue = connection.SimpleQueue("bots")
        monkeypatch.setattr(builtins, "open", watching_open)
        queue.put({"game": 1, "seq": 2})
        monkeypatch.undo()
        assert seen_while_writing == []
        assert queue.get(timeout=1).payload == {"game": 1, "seq": 2}
        queue.close()


def test_two_workers_on_one_queue_take_each_message_once_even_with_tmp_on_another_file_system(tmp_path, monkeypatch):
    folder = tmp_path / "broker"
    folder.mkdir()
    real_rename = os.rename

    def rename(source, destination, *args, **kwargs):  # /tmp on a tmpfs: a move there is a copy
        if not str(destination).startswith(str(folder)):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(source, destination, *args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    # a queue name of this test's own: kombu keeps what it learnt of a name's exchange per process
    with _connection(folder) as sender:
        queue = sender.SimpleQueue("paired")
        for number in range(200):
            queue.put({"n": number})
        queue.close()
    taken: list[list[int]] = [[], []]
    failed: list[BaseException] = []
    start = threading.Barrier(2)

    def worker(index: int) -> None:
        with _connection(folder) as connection:
            channel = connection.default_channel
            channel.queue_declare("paired")
            start.wait()
            while True:
                try:
                    taken[index].append(channel._get("paired")["body"])
                except BaseException as error:  # noqa: BLE001 - Empty ends it; anything else is the failure
                    if type(error).__name__ != "Empty":
                        failed.append(error)
                    return

    threads = [threading.Thread(target=worker, args=(index,)) for index in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failed
    bodies = taken[0] + taken[1]
    assert len(bodies) == 200 and len(set(bodies)) == 200  # every message once: none lost, none twice
    assert not [path for path in folder.iterdir() if path.name.endswith(".msg") or path.name.startswith("~")]
