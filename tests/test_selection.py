"""The selection engine: grid search against a brute-force argmax, and one choice everywhere —
``lm train``, the estimator's own "auto" and ``evaluation/pautomac.py`` choose the same."""

from __future__ import annotations

import importlib
import itertools
from pathlib import Path

import numpy as np
import pytest

from seqspectral.corpus import read_pautomac
from seqspectral.lm import make_estimator, train_lm
from seqspectral.selection import (HELD_OUT_FRACTION, CandidateFailed, SelectionError, SelectionResult, grid_search,
                                   held_out_split)

ROOT = Path(__file__).resolve().parents[1]


def test_grid_search_finds_the_brute_force_best_and_records_failures():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(4, 3))
    grid = {"a": [1, 2, 3, 4], "b": [0.1, 0.2, 0.3]}

    def score(a, b):
        if a == 3:
            raise CandidateFailed("three is not allowed")
        return table[a - 1, grid["b"].index(b)]

    result = grid_search(grid, score, "test")
    allowed = [(a, b) for a, b in itertools.product(grid["a"], grid["b"]) if a != 3]
    best = max(allowed, key=lambda c: score(*c))
    assert (result.chosen["a"], result.chosen["b"]) == best
    assert len(result.table) == 12 and sum(r["score"] is None for r in result.table) == 3
    assert SelectionResult.from_json(result.to_json()) == result
    with pytest.raises(SelectionError):
        grid_search({"a": [1]}, lambda a: (_ for _ in ()).throw(CandidateFailed("no")), "test")


def test_at_edge_names_choices_at_either_end_of_a_grid():
    result = grid_search({"n": [1, 2, 4, 8], "f": [0.5]}, lambda n, f: n, "test")
    assert result.chosen == {"n": 8, "f": 0.5} and result.at_edge == ["n"]  # a one-value grid has no edge


def test_held_out_split_is_seeded_and_refuses_an_empty_dev():
    corpus = read_pautomac(ROOT / "corpora" / "toy.pautomac.train")
    a, b = held_out_split(corpus, None, 0)[1], held_out_split(corpus, None, 0)[1]
    np.testing.assert_array_equal(a.symbols, b.symbols)
    assert len(a) == round(HELD_OUT_FRACTION * len(corpus))
    with pytest.raises(SelectionError, match="empty"):
        held_out_split(corpus, corpus.subset([]), 0)


def _pautomac_benchmark():
    return importlib.import_module("evaluation.pautomac")


@pytest.mark.parametrize("method", ["spectral-substring", "tensor"])
def test_the_same_method_on_the_same_data_makes_the_same_choice_everywhere(method):
    train = read_pautomac(ROOT / "corpora" / "toy.pautomac.train")
    lm = train_lm(train, method)
    own = make_estimator(method).fit(train)
    benchmark = _pautomac_benchmark().fit_method(method, train, 0)
    chosen = {k: lm.selection.chosen[k] for k in ("n_states", "floor")}
    assert chosen == {"n_states": own.n_states_, "floor": own.floor_}
    assert chosen == {"n_states": benchmark.n_states_, "floor": benchmark.floor_}
    assert lm.selection.table[: len(own.selection_.table)] == own.selection_.table


def test_patience_stops_a_path_after_values_that_do_not_improve():
    calls = []

    def score(tau, floor):
        calls.append(tau)
        return -abs(tau - 3) + 0.01 * floor

    result = grid_search({"tau": [1, 2, 3, 4, 5, 6, 7], "floor": [0, 1]}, score, "test", patience=2)
    assert result.chosen == {"tau": 3, "floor": 1}
    assert sorted(set(calls)) == [1, 2, 3, 4, 5]  # 4 and 5 did not improve: 6 and 7 are never solved
    assert grid_search({"tau": [1, 2, 3, 4, 5, 6, 7], "floor": [0, 1]}, score, "test").chosen == result.chosen


def test_every_grid_is_defined_in_selection_py():
    """docs/design.md's one answer to "where is the code that picks a hyper-parameter": no
    other module of the package defines a ``*_GRID`` of candidates."""
    import ast

    stray = []
    for path in sorted((ROOT / "seqspectral").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AnnAssign) else []
            stray += [f"{path.relative_to(ROOT)}:{node.lineno} {t.id}" for t in targets
                      if isinstance(t, ast.Name) and t.id.endswith("_GRID")]
    assert stray and all(s.startswith("seqspectral/selection.py:") for s in stray), stray
