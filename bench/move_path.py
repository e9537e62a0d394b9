"""What a reader visits for one move POST: `python -m bench.move_path`.

One move is played through Django's whole request handler (as `bench.p1_profile` plays them,
on PostgreSQL: `BENCH_DATABASE_URL`) while a profile hook notes every call into the project's
own code (not Django's, DRF's or the standard library's). It prints how many of the project's
modules and functions the move visits, and how often the path returns to a module it had
already left: the count issue 50 asks for, before and after a change to the write path.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench import db, p1, p1_profile

ROOT = Path(__file__).resolve().parents[1]
OWN = tuple(str(ROOT / folder) + os.sep for folder in
            ("games", "accounts", "chat", "apikit", "consumers", "project", "rules", "mail", "hooks", "streams", "competition",
             "analysis", "bots", "web"))


def visited(call) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
    """The project's modules in the order the path enters them (a module again each time the
    path comes back to it), every (module, function) it calls, and every call from one module
    into another (caller, callee)."""
    entered: list[str] = []
    functions: list[tuple[str, str]] = []
    crossings: list[tuple[str, str]] = []

    def hook(frame, event, arg):
        if event != "call":
            return
        filename = frame.f_code.co_filename
        if not filename.startswith(OWN):
            return
        module = os.path.relpath(filename, ROOT)
        functions.append((module, frame.f_code.co_name))
        caller = frame.f_back.f_code.co_filename if frame.f_back else ""
        caller = os.path.relpath(caller, ROOT) if caller.startswith(OWN) else "(framework)"
        if caller != module:
            crossings.append((caller, module))
        if not entered or entered[-1] != module:
            entered.append(module)

    sys.setprofile(hook)
    try:
        call()
    finally:
        sys.setprofile(None)
    return entered, functions, crossings


def main() -> None:
    url = db.migrated()
    os.environ.setdefault("SCRAPYARD_RATE_ACCOUNT", "1000000")
    p1_profile.play(url, 20)  # warm: imports and caches, as a running server has them
    players, game_id = p1._two_players_in_a_game(url)
    game = players[0].get(f"/api/games/{game_id}/").json()
    seat = game["to_act"][0]
    listed = players[seat].get(f"/api/games/{game_id}/legal-moves/").json()
    body = {"move": listed["moves"][0], "expected_seq": listed["seq"]}
    answer = []
    entered, functions, crossings = visited(lambda: answer.append(
        players[seat].post(f"/api/games/{game_id}/moves/", body, format="json")))
    assert answer[0].status_code == 201, answer[0].content
    modules = sorted(set(entered))
    returns = len(entered) - len(modules)
    print(f"one move POST visits {len(modules)} of the project's modules and {len(set(functions))} of its functions "
          f"({len(functions)} calls); the path returns {returns} times to a module it had left")
    if "--modules" in sys.argv:
        print("\n".join(modules))
    store = "games/stores/fast.py"
    into = [caller for caller, callee in crossings if callee == store]
    print(f"it calls into {store} {len(into)} times, from {len(set(into))} modules: {', '.join(sorted(set(into)))}")


if __name__ == "__main__":
    main()
