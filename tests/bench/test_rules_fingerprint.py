"""The rules fingerprint (bench/rules_fingerprint.py): the same seeded games give the same digest,
and any change in a legal-move list, even of order alone, gives another."""

from __future__ import annotations

from bench import rules_fingerprint
from rules.terrafex import RULES


def test_a_seeded_game_gives_the_same_digest_every_time() -> None:
    first = rules_fingerprint.fingerprint_game(RULES, 2, {}, "fingerprint-test")
    assert first == rules_fingerprint.fingerprint_game(RULES, 2, {}, "fingerprint-test")
    assert first != rules_fingerprint.fingerprint_game(RULES, 2, {}, "fingerprint-other")


def test_legal_moves_listed_in_another_order_change_the_digest(monkeypatch) -> None:
    before = rules_fingerprint.fingerprint_game(RULES, 2, {}, "fingerprint-test")
    listed = type(RULES).legal_moves
    monkeypatch.setattr(type(RULES), "legal_moves", lambda self, state, seat: listed(self, state, seat)[::-1])
    assert rules_fingerprint.fingerprint_game(RULES, 2, {}, "fingerprint-test") != before


def test_check_reports_a_differing_case(tmp_path, capsys) -> None:
    digests = tmp_path / "before.txt"
    assert rules_fingerprint.main(["--games", "1", "--rules", "terrafex", "--out", str(digests)]) == 0
    assert rules_fingerprint.main(["--games", "1", "--rules", "terrafex", "--check", str(digests)]) == 0
    assert "same" in capsys.readouterr().out
    case, _ = digests.read_text().splitlines()[0].rsplit(" ", 1)
    digests.write_text(f"{case} {'0' * 64}\n")
    assert rules_fingerprint.main(["--games", "1", "--rules", "terrafex", "--check", str(digests)]) == 1
    assert "DIFFERENT" in capsys.readouterr().out
