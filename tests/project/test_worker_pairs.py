"""deploy/supervisord.conf's Celery workers in pairs (docs/decisions/0035-worker-pairs.md): every
queue a task or a consumer is sent to is consumed by at least two worker processes, so a SIGKILL of
one leaves the other taking the queue's tasks; the pair shares its queue's processes; beat is one."""

from __future__ import annotations

import configparser
import shlex

from consumers import framework
from project import work
from tests.streams.test_game_stream import ROOT


def _config() -> configparser.RawConfigParser:
    config = configparser.RawConfigParser(strict=False)
    config.read(ROOT / "deploy" / "supervisord.conf")
    return config


def _programs(config: configparser.RawConfigParser) -> dict[str, tuple[list[str], int]]:
    """Each program's command (its words, supervisord's expansions left in) and its process count."""
    return {section.partition(":")[2]: (shlex.split(config.get(section, "command")), config.getint(section, "numprocs", fallback=1))
            for section in config.sections() if section.startswith(("program:", "fcgi-program:"))}


def _queues_sent_to() -> set[str]:
    from django.conf import settings

    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    return routed | {consumer.queue for consumer in framework.registered()} | {settings.CELERY_TASK_DEFAULT_QUEUE}


def _consumed(programs) -> dict[str, int]:
    """How many worker processes consume each queue."""
    counts: dict[str, int] = {}
    for words, processes in programs.values():
        if "project.work" not in words and "worker" not in words:
            continue
        for word in words:
            if word.startswith("--queues="):
                for queue in word.removeprefix("--queues=").split(","):
                    counts[queue] = counts.get(queue, 0) + processes
    return counts


def test_every_queue_a_task_is_sent_to_has_two_worker_processes_at_least():
    consumed = _consumed(_programs(_config()))
    assert {"deadlines", "bots", "default", "mail", "webhooks", "feed", "analysis"} <= _queues_sent_to()
    assert {queue: consumed.get(queue, 0) for queue in _queues_sent_to()} == dict.fromkeys(_queues_sent_to(), 2)


def test_each_of_a_pair_is_a_worker_of_its_own_name_in_the_workers_group():
    config = _config()
    programs = _programs(config)
    grouped = config.get("group:workers", "programs").split(",")
    for name in grouped:
        words, processes = programs[name]
        assert processes == 2 and words[1:3] == ["-m", "project.work"], name
        assert "--instance=%(process_num)d" in words and config.get(f"program:{name}", "process_name") == "%(program_name)s-%(process_num)d"
    assert sorted(grouped) == sorted(name for name, (words, _) in programs.items() if "project.work" in words)


def test_beat_is_one_and_no_worker_embeds_another():
    programs = _programs(_config())
    beats = [name for name, (words, _) in programs.items() if "beat" in words]
    assert beats == ["beat"] and programs["beat"][1] == 1
    assert not any({"-B", "--beat"} & set(words) for words, _ in programs.values())


def test_a_pair_shares_its_queues_processes_half_each_rounded_up():
    assert [work.processes_each(total) for total in (1, 2, 3, 4)] == [1, 1, 2, 2]
    line = work.command("bots", 4, 1)
    assert line[:5] == ["celery", "-A", "project", "worker", "--queues=bots"]
    assert "--concurrency=2" in line and "--hostname=bots-1@%h" in line
    assert {"--without-mingle", "--without-gossip"} <= set(line)  # docs/decisions/0023


def test_mail_has_a_queue_of_its_own():
    from mail.consumer import FORCED_MOVES, Mail
    from project.celery import app

    assert framework.get(Mail.name).queue == "mail"
    assert FORCED_MOVES.queue == "mail"  # forced moves, a consumer of their own, with mail's fan-outs
    # a reply by mail is a player's move: not behind a slow mail relay
    assert app.amqp.router.route({}, "mail.handle_inbound")["queue"].name == "default"
    assert all(consumer.queue != "mail" for consumer in framework.registered()
               if consumer.name not in (Mail.name, FORCED_MOVES.name))
