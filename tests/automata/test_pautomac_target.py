"""PAutomaC target machines reproduce the competition's true probabilities."""

from pathlib import Path

import numpy as np
import pytest

from seqspectral.automata.pautomac_target import read_pautomac_target
from seqspectral.corpus import Corpus, CorpusFormatError, Vocabulary

PAUTOMAC = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "pautomac"
PROBLEMS = sorted(int(p.name.split(".")[0]) for p in PAUTOMAC.glob("*.pautomac_model.txt")) if PAUTOMAC.is_dir() else []


def _test_corpus(n):
    """The test strings, parsed here independently of the project's readers."""
    lines = (PAUTOMAC / f"{n}.pautomac.test").read_text().splitlines()
    k = int(lines[0].split()[1])
    vocab = Vocabulary(str(a) for a in range(k))
    return Corpus.from_ids([[int(a) + 2 for a in line.split()[1:]] for line in lines[1:] if line.strip()], vocab)


@pytest.mark.skipif(not PROBLEMS, reason=f"{PAUTOMAC} not found")
def test_all_problems_reproduce_solution():
    assert len(PROBLEMS) == 24
    for n in PROBLEMS:
        corpus = _test_corpus(n)
        target = read_pautomac_target(PAUTOMAC / f"{n}.pautomac_model.txt", corpus.vocabulary)
        p = np.exp(target.log_values(corpus)[1])
        solution = np.loadtxt(PAUTOMAC / f"{n}.pautomac_solution.txt", skiprows=1)
        # the solution files are normalised over the test set
        rel = np.abs(p / p.sum() / (solution / solution.sum()) - 1)
        assert rel.max() < 1e-6, (n, rel.max())
        # and the machine is a distribution over all strings: no mass beyond stop and symbols
        one_step = target.operators.sum(0).sum(1) + target.final
        np.testing.assert_allclose(one_step[target.initial > 0], 1.0, atol=1e-6)


def test_small_machine_by_hand(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("I: (state)\n\t(0) 1.0\nF: (state)\n\t(1) 0.5\nS: (state,symbol)\n\t(0,0) 1.0\n\t(1,1) 1.0\n"
                    "T: (state,symbol,state)\n\t(0,0,1) 1.0\n\t(1,1,1) 1.0\n")
    target = read_pautomac_target(path)
    assert target.vocabulary.symbols[2:] == ["0", "1"]
    # p(0 1^n) = 0.5^(n+1)
    for n in range(4):
        assert target.value([2] + [3] * n) == pytest.approx(0.5 ** (n + 1))
    assert target.value([3]) == 0.0


def test_bad_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("I: (state)\n\t(0) 1.0\nT: (state,symbol,state)\n\t(0,0) 1.0\n")
    with pytest.raises(CorpusFormatError, match=r"bad.txt:4"):
        read_pautomac_target(path)
