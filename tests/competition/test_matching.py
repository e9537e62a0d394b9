"""competition.matching is networkx's blossom algorithm on a plain dict: it must choose the very
matching networkx chooses, ties included (the Swiss pairing depends on it)."""

import random

import networkx as nx
import pytest

from competition import matching


def _random_edges(rng: random.Random, vertices: int, density: float, top_weight: int) -> list[tuple[int, int, int]]:
    order = list(range(vertices))
    rng.shuffle(order)  # vertices first seen in any order, as the Swiss pairing's weights give them
    return [(a, b, rng.randint(1, top_weight)) for a in order for b in order if a < b and rng.random() < density]


@pytest.mark.parametrize("seed", range(40))
def test_the_same_matching_as_networkx_ties_included(seed):
    rng = random.Random(seed)
    edges = _random_edges(rng, rng.randint(2, 30), rng.choice([0.2, 0.5, 1.0]), rng.choice([1, 3, 10**12]))
    graph = nx.Graph()
    graph.add_weighted_edges_from(edges)
    expected = {}
    for a, b in nx.max_weight_matching(graph):
        expected[a], expected[b] = b, a

    assert matching.max_weight_matching(matching.adjacency_from_edges(edges)) == expected


def test_an_empty_graph_has_an_empty_matching():
    assert matching.max_weight_matching({}) == {}


def test_the_heaviest_matching_not_the_largest():
    # 1-2 alone weighs 7, more than 0-1 with 2-3 (5 + 1)
    mate = matching.max_weight_matching(matching.adjacency_from_edges([(0, 1, 5), (1, 2, 7), (2, 3, 1)]))
    assert mate == {1: 2, 2: 1}
