"""A complete third-party bot for Scrapyard, on the public API only: it makes its account a bot
account, hears of its games on its account feed, and plays each from that game's stream alone:
every state on the stream says whether it is to act and with which legal moves, so its only
requests are the stream and one POST per move of its own.

    python examples/stream_bot.py --api http://127.0.0.1:8000 --token KEY [--games 1]
        [--streams URL (where the streams are served, if not on the API's address)]

People seat it in their games with `POST /api/games/{id}/bots/ {"account": "<its username>"}`.
It plays a random legal move; put your engine in `choose`. Needs `requests`.
"""

import argparse
import json
import random
import sys
import threading
import time

import requests

STATES = ("game_full", "game_state")


def choose(moves):
    return random.choice(moves)  # the engine goes here


class Bot:
    def __init__(self, api, streams, token):
        self.api, self.streams, self.token = api.rstrip("/"), streams.rstrip("/"), token
        self.playing = set()

    def session(self):  # one per thread: a requests.Session is not shared between threads
        http = requests.Session()
        http.headers["Authorization"] = f"Token {self.token}"
        return http

    def become_bot(self):
        answer = self.session().post(f"{self.api}/api/accounts/me/bot/", timeout=30)
        if answer.status_code != 200:
            sys.exit(f"cannot become a bot account: {answer.text}")
        print(f"playing as {answer.json()['username']}", flush=True)

    def items(self, http, path, resume=False):
        """A stream's items, one at a time (NDJSON). After a dropped connection a game's stream
        (`resume`) reconnects with `?after=` the last seq it saw, so it misses no event and is
        sent none twice (the account feed opens afresh, with what is current); a token
        refused or revoked ends the bot, as retrying cannot mend it."""
        seen = None
        while True:
            try:
                with http.get(f"{self.streams}{path}", headers={"Accept": "application/x-ndjson"},
                              params={} if seen is None else {"after": seen}, stream=True, timeout=(10, 60)) as stream:
                    if stream.status_code in (401, 403):
                        sys.exit(f"{path}: {stream.json().get('detail')}")
                    stream.raise_for_status()
                    for line in stream.iter_lines():
                        if line:  # blank lines keep the connection alive
                            item = json.loads(line)
                            if item.get("type") == "stream_end" and item.get("reason") == "token_revoked":
                                sys.exit(f"{path}: the token no longer works")
                            seen = item.get("seq", seen) if resume else None
                            yield item
            except requests.RequestException as error:
                print(f"{path} lost ({error}); reconnecting", flush=True)
                time.sleep(1)

    def play(self, game_id):
        """Moves at each state that gives it moves; a state older than its own last move (sent
        before that move landed, in a step where it still had to act) is past and skipped."""
        http, acted_at, mine = self.session(), -1, -1
        for item in self.items(http, f"/api/games/{game_id}/stream/", resume=True):
            if item.get("type") == "stream_end":
                return
            if item.get("type") not in STATES:
                continue  # an event: the state after it follows
            legal = item["legal_moves"]
            if legal and legal["moves"] and legal["seq"] > acted_at and legal["seq"] >= mine:
                acted_at = legal["seq"]
                answer = http.post(f"{self.api}/api/games/{game_id}/moves/", timeout=30,
                                   json={"move": choose(legal["moves"]), "expected_seq": legal["seq"]})
                mine = answer.json()["seq"] if answer.status_code == 201 else mine
            if item["status"] == "finished":
                return

    def run(self, games):
        finished = 0
        for notice in self.items(self.session(), "/api/stream/"):
            if notice["type"] in ("game_started", "your_turn") and notice["game"] not in self.playing:
                self.playing.add(notice["game"])
                threading.Thread(target=self.play, args=(notice["game"],), daemon=True).start()
            elif notice["type"] == "game_over":
                finished += 1
                print(f"game {notice['game']} over: {notice['result']}", flush=True)
                if games and finished >= games:
                    return


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="a random bot on the Scrapyard API")
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--streams", help="where the streams are served (default: the API's address)")
    parser.add_argument("--token", required=True)
    parser.add_argument("--games", type=int, default=0, help="stop after this many games (0: never)")
    arguments = parser.parse_args()
    bot = Bot(arguments.api, arguments.streams or arguments.api, arguments.token)
    bot.become_bot()
    bot.run(arguments.games)
