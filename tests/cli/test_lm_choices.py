"""`seqspectral lm train` tells the user what its choices mean: impossible sizes refused,
a useless learned model and a choice at the edge of its grid said plainly, progress shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from seqspectral.automata.planted import planted_hmm
from seqspectral.cli.main import main
from seqspectral.corpus import write_pautomac

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
TOY = CORPORA / "toy.pautomac.train"


def train(capsys, tmp_path, *args):
    status = main(["lm", "train", *map(str, args), "-o", str(tmp_path / "m.npz")])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("method, states", [("spectral-substring", 10**12), ("em", 10**12), ("tensor", 40)])
def test_more_states_than_the_method_can_learn_is_a_usage_error(capsys, tmp_path, method, states):
    status, _, err = train(capsys, tmp_path, TOY, "--method", method, "--states", states, "--quiet")
    assert status == 2 and err.startswith("seqspectral: error:") and err.count("\n") == 1
    assert not (tmp_path / "m.npz").exists()


def test_a_learned_model_with_no_weight_in_its_mixture_is_said_plainly(capsys, tmp_path):
    hmm = planted_hmm(3, 5, seed=2)
    write_pautomac(tmp_path / "markov.train", hmm.sample(3000, random_state=0))
    write_pautomac(tmp_path / "markov.dev", hmm.sample(300, random_state=1))
    status, out, err = train(capsys, tmp_path, tmp_path / "markov.train", "--method", "tensor", "--states", "1",
                             "--dev", tmp_path / "markov.dev")
    assert status == 0 and "model_weight=0" in out
    assert "weight 0 in its mixture" in err
    status, out, err = main(["lm", "info", str(tmp_path / "m.npz")]), *capsys.readouterr()
    assert status == 0 and "weight 0 in its mixture" in out + err


def test_convex_training_shows_its_progress_when_piped(capsys, tmp_path):
    status, _, err = train(capsys, tmp_path, TOY, "--method", "convex", "--basis-length", "1")
    assert status == 0 and "ConvexWA: regularization" in err
    status, _, err = train(capsys, tmp_path, TOY, "--method", "convex", "--basis-length", "1", "--quiet")
    assert status == 0 and err == ""
