"""The order a parallel run hands out its tests: the longest start first, one process each.

`--dist=worksteal` gives each process an equal, contiguous share of the collected tests, runs each
share in order, and lets an idle process take the tail of a busy one's share. Left in file order,
the long tests (whole games, browsers, real workers) sit together in one or two shares, and the
run ends with one process still playing a long game while the others wait. Here the known long
tests are dealt out over the shares (longest first, each to the share with the least known time)
and put at the head of their share, which is never stolen: every process starts on its long tests
at once, and the run ends on short ones, which stealing spreads evenly.

`LONGEST` holds seconds from a whole run's `--durations=80` (setup, call and teardown, 10 s and
more; -n 2, load average 8 to 15, 2026-11-25, after the cuts of issue 35); only their order and
rough size matter. Refresh it from a run's slowest list; a test missing from it counts as short, and a stale
entry does no harm.
"""

from __future__ import annotations

import heapq

import pytest

LONGEST: dict[str, float] = {
    "tests/api/test_schema.py::test_fuzzing_the_schema_finds_no_server_error_and_no_answer_off_the_schema": 370,
    "tests/api/test_scavenge_api.py::test_complete_scavenge_games_through_the_api[2]": 146,
    "tests/rules/test_contract.py::test_random_games_keep_the_contract[terrain_vague-4p-to_25=True]": 141,
    "tests/web/test_table.py::test_each_game_is_played_to_its_end_from_the_table[space_junkyard]": 104,
    "tests/api/test_every_game_api.py::test_a_complete_game_through_the_api[scavenge-2p]": 97,
    "tests/web/test_table.py::test_each_game_is_played_to_its_end_from_the_table[terrain_vague]": 88,
    "tests/workers/test_broker_outages.py::test_five_redis_outages_lose_no_deadline_and_no_bot_turn": 75,
    "tests/api/test_scavenge_api.py::test_complete_scavenge_games_through_the_api[3]": 66,
    "tests/rules/test_contract.py::test_random_games_keep_the_contract[scavenge-2p-straight_moves=True]": 64,
    "tests/mail/test_play_by_email.py::test_a_game_of_terrain_vague_with_a_wrestling_round_by_email_only": 56,
    "tests/api/test_every_game_api.py::test_a_complete_game_through_the_api[terrain_vague-4p]": 54,
    "tests/api/test_every_game_api.py::test_a_complete_game_through_the_api[space_junkyard-4p]": 45,
    "tests/web/test_table.py::test_each_game_is_played_to_its_end_from_the_table[scavenge]": 43,
    "tests/api/test_every_game_api.py::test_a_complete_game_through_the_api[space_junkyard-2p]": 42,
    "tests/rules/test_contract.py::test_random_games_keep_the_contract[scavenge-4p-straight_moves=True]": 35,
    "tests/web/test_table.py::test_each_game_is_played_to_its_end_from_the_table[terrafex]": 35,
    "tests/workers/test_mail_workers.py::test_workers_carry_a_whole_game_played_by_email": 35,
    "tests/api/test_every_game_api.py::test_a_complete_game_through_the_api[scavenge-4p]": 34,
    "tests/workers/test_tournament_workers.py::test_a_swiss_of_eight_bots_is_run_to_its_end_by_the_workers": 32,
    "tests/rules/test_contract.py::test_random_games_keep_the_contract[scavenge-3p-straight_moves=True]": 31,
    "tests/api/test_every_game_api.py::test_a_complete_game_through_the_api[terrain_vague-2p]": 31,
    "tests/workers/test_deadline_workers.py::test_a_deadline_is_not_held_up_by_a_saturated_bot_queue": 30,
    "tests/workers/test_deadline_workers.py::test_a_timeout_is_applied_once_when_sweeps_and_tasks_race": 28,
    "tests/web/test_browser.py::test_two_people_play_a_game_to_its_end_in_two_browsers": 24,
    "tests/mail/test_play_by_email.py::test_a_whole_game_of_scavenge_by_email_only": 24,
    "tests/workers/test_deadline_workers.py::test_a_game_of_bots_only_finishes_through_the_workers": 23,
    "tests/web/test_conditionals_page.py::test_a_line_is_picked_queued_cancelled_and_played[1280-900-laptop]": 23,
    "tests/api/test_secrets_api.py::test_a_secret_choice_changes_nothing_another_seat_can_read": 22,
    "tests/api/test_scavenge_api.py::test_complete_scavenge_games_through_the_api[4]": 21,
    "tests/mail/test_play_by_email.py::test_in_a_simultaneous_step_another_seats_choice_does_not_make_a_mail_stale": 18,
    "tests/rules/test_contract.py::test_random_games_keep_the_contract[scavenge-4p]": 16,
    "tests/project/test_web_security.py::test_behind_tls_hsts_and_secure_cookies_are_switched_on_by_django_secure": 15,
    "tests/mail/test_abuse.py::test_forced_moves_are_played_for_those_who_chose_it_as_their_own_move": 15,
    "tests/streams/test_one_origin.py::test_a_private_games_stream_is_served_on_the_apis_address_with_its_token": 13,
    "tests/web/test_table.py::test_axe_finds_no_serious_problem_on_any_page": 13,
    "tests/api/test_every_game_api.py::test_a_complete_game_through_the_api[terrafex-2p]": 13,
    "tests/web/test_browser.py::test_a_person_plays_scavenge_against_a_bot_by_pointing_at_the_board": 12,
    "tests/mail/test_mail_choices.py::test_mails_hold_nothing_of_another_seats_secret": 11,
    "tests/web/test_table.py::test_a_phone_plays_without_sideways_scroll_and_the_confirm_in_sight": 10,
    "tests/rules/test_contract.py::test_random_games_keep_the_contract[scavenge-2p]": 10,
    "tests/workers/test_deadline_workers.py::test_a_worker_killed_mid_task_still_gives_exactly_one_timeout": 10,
}


def deal_longest_first(items: list[pytest.Item], processes: int) -> list[pytest.Item]:
    """`items` reordered so each of the `processes` shares xdist will cut starts with its long
    tests, the known time spread as evenly as the long tests allow; the rest keep their order."""
    if processes < 2:
        return items
    long_tests = sorted((item for item in items if item.nodeid in LONGEST), key=lambda item: -LONGEST[item.nodeid])
    if not long_tests:
        return items
    heads = _deal(long_tests, processes)
    chosen = {item.nodeid for item in long_tests}
    rest = iter(item for item in items if item.nodeid not in chosen)
    ordered: list[pytest.Item] = []
    for head, size in zip(heads, _share_sizes(len(items), processes)):
        ordered.extend(head)
        ordered.extend(next(rest) for _ in range(max(0, size - len(head))))
    ordered.extend(rest)
    return ordered


def _deal(long_tests: list[pytest.Item], processes: int) -> list[list[pytest.Item]]:
    """Each test, longest first, to the share with the least known time so far."""
    heads: list[list[pytest.Item]] = [[] for _ in range(processes)]
    loads = [(0.0, share) for share in range(processes)]
    for item in long_tests:
        load, share = heapq.heappop(loads)
        heads[share].append(item)
        heapq.heappush(loads, (load + LONGEST[item.nodeid], share))
    return heads


def _share_sizes(count: int, processes: int) -> list[int]:
    """The sizes of the contiguous shares xdist's work-stealing scheduler cuts at the start
    (xdist.scheduler.worksteal: the pending tests split evenly among the idle processes)."""
    sizes = []
    for taken in range(processes):
        sizes.append(count // (processes - taken))
        count -= sizes[-1]
    return sizes
