"""A complete third-party bot for Scrapyard, on the public API only: it makes its account a bot
account, listens to its account feed, and answers each `your_turn` with a legal move.

    python examples/stream_bot.py --api http://127.0.0.1:8000 --streams http://127.0.0.1:8001 \\
        --token KEY [--games 1]

People seat it in their games with `POST /api/games/{id}/bots/ {"account": "<its username>"}`.
It plays a random legal move; put your engine in `choose`. Needs `requests`.
"""

import argparse
import json
import random
import sys
import time

import requests


def choose(moves):
    return random.choice(moves)  # the engine goes here


class Bot:
    def __init__(self, api, streams, token):
        self.api, self.streams = api.rstrip("/"), streams.rstrip("/")
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Token {token}"

    def call(self, method, path, **body):
        response = self.http.request(method, f"{self.api}/api{path}", json=body or None, timeout=30)
        return response.status_code, response.json() if response.content else None

    def become_bot(self):
        status, answer = self.call("POST", "/accounts/me/bot/")
        if status != 200:
            sys.exit(f"cannot become a bot account: {answer}")
        print(f"playing as {answer['username']}", flush=True)

    def notices(self):
        """The account feed, one notice at a time; reconnects after a dropped connection."""
        while True:
            try:
                with self.http.get(f"{self.streams}/api/stream/", headers={"Accept": "application/x-ndjson"},
                                   stream=True, timeout=(10, 60)) as feed:
                    feed.raise_for_status()
                    for line in feed.iter_lines():
                        if line:  # blank lines keep the connection alive
                            yield json.loads(line)
            except requests.RequestException as error:
                print(f"feed lost ({error}); reconnecting", flush=True)
                time.sleep(1)

    def play(self, game_id):
        """Moves while it is our turn: one notice per turn, but a stale answer is simply retried."""
        for _ in range(3):
            status, listed = self.call("GET", f"/games/{game_id}/legal-moves/")
            if status != 200 or not listed["moves"]:
                return
            status, answer = self.call("POST", f"/games/{game_id}/moves/",
                                       move=choose(listed["moves"]), expected_seq=listed["seq"])
            if status == 201 or answer.get("code") not in ("stale_seq", "not_your_turn"):
                return

    def run(self, games):
        finished = 0
        for notice in self.notices():
            if notice["type"] == "your_turn":
                self.play(notice["game"])
            elif notice["type"] == "game_over":
                finished += 1
                print(f"game {notice['game']} over: {notice['result']}", flush=True)
                if games and finished >= games:
                    return


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="a random bot on the Scrapyard API")
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--streams", default="http://127.0.0.1:8001")
    parser.add_argument("--token", required=True)
    parser.add_argument("--games", type=int, default=0, help="stop after this many games (0: never)")
    arguments = parser.parse_args()
    bot = Bot(arguments.api, arguments.streams, arguments.token)
    bot.become_bot()
    bot.run(arguments.games)
