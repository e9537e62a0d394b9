"""The Dutch player guides (docs/games/nl/<id>.md): one for every game, each with the English
page's examples of every kind of move and its view, word for word (the English pages are made from
the code by `python -m rules.docs`; the guides are written by hand and must not drift), Terrain
Vague's pieces named as its Dutch rulebook does; and the game page shows a Dutch reader the guide."""

from __future__ import annotations

from pathlib import Path

import pytest

import rules

GAMES = Path(__file__).resolve().parents[2] / "docs" / "games"
SHIPPED = ["scavenge", "terrafex", "space_junkyard", "terrain_vague"]


def _items(page: str, heading: str) -> list[str]:
    section = page.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- `")]


def test_every_shipped_game_has_a_dutch_guide():
    assert set(SHIPPED) <= set(rules.catalog())
    assert sorted(path.name for path in (GAMES / "nl").glob("*.md")) == sorted(f"{game}.md" for game in SHIPPED)


@pytest.mark.parametrize("game", SHIPPED)
def test_a_guide_keeps_the_english_pages_examples_and_view(game):
    english, dutch = (GAMES / f"{game}.md").read_text(), (GAMES / "nl" / f"{game}.md").read_text()
    assert _items(dutch, "Elke soort zet") == _items(english, "Every kind of move") != []
    assert _items(dutch, "De weergave") == _items(english, "The view") != []
    for english_heading in ("## Rules", "## Options", "## Every kind", "## The view"):
        assert english_heading not in dutch


def test_terrain_vague_names_its_pieces_as_the_dutch_rulebook():
    guide = (GAMES / "nl" / "terrain_vague.md").read_text().lower()
    for word in ("kruiwagens", "katapulten", "deksels", "grote broer", "clubhuis"):
        assert word in guide, word
