"""`lm train/lm info --plot`: the Hankel singular values and the held-out score of every
candidate, the plot a user chooses the number of states from (seqspectral.display.plots)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from seqspectral.cli.main import main
from seqspectral.counting import HankelBasis, hankel_statistics
from seqspectral.corpus import read_pautomac
from seqspectral.display.plots import best_scores, swept_name
from seqspectral.lm import load_lm, train_lm
from seqspectral.selection import SelectionResult

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
TOY = CORPORA / "toy.pautomac.train"


def test_each_value_gets_its_best_score_over_the_floors():
    table = [{"n_states": 4, "floor": 0.1, "score": -3.0}, {"n_states": 2, "floor": 0.1, "score": -5.0},
             {"n_states": 4, "floor": 0.01, "score": -2.5}, {"n_states": 8, "floor": 0.1, "score": None},
             {"mixture_k": 0.3, "score": -1.0}]
    selection = SelectionResult("dev", {"n_states": 4, "floor": 0.01, "mixture_k": 0.3}, table)
    assert swept_name(selection) == "n_states"
    assert best_scores(selection, "n_states") == ([2, 4], [-5.0, -2.5])


def test_the_stored_spectrum_is_the_hankel_matrix_s():
    train = read_pautomac(TOY)
    dev = read_pautomac(CORPORA / "toy.pautomac.test")
    lm = train_lm(train, "spectral-substring", dev=dev, mix_order=None)  # with dev: fitted on all of train
    basis = HankelBasis.from_corpus(train, "substring", n_prefixes=500, n_suffixes=500, max_length=3)
    expected = np.linalg.svd(hankel_statistics(train, basis, statistic="substring").H.toarray(), compute_uv=False)
    stored = np.array(lm.training["hankel_singular_values"])
    np.testing.assert_allclose(stored, expected[:len(stored)], rtol=1e-5)


def test_train_and_info_write_the_plot(tmp_path, capsys):
    model, png, svg = tmp_path / "m.npz", tmp_path / "m.png", tmp_path / "m.svg"
    assert main(["lm", "train", str(TOY), "-o", str(model), "--method", "spectral-substring", "--plot", str(png),
                 "--quiet"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["lm", "info", str(model), "--plot", str(svg)]) == 0
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    capsys.readouterr()
    assert main(["lm", "info", str(model), "--plot", str(tmp_path / "missing" / "p.png")]) == 2


def test_without_matplotlib_the_error_says_what_to_install(tmp_path, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    status = main(["lm", "train", str(TOY), "-o", str(tmp_path / "m.npz"), "--method", "ngram",
                   "--plot", str(tmp_path / "m.png")])
    assert status == 2 and 'pip install "seqspectral[plot]"' in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()  # refused before training
