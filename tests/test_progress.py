"""One progress rule: a bar on a terminal, one line per stage otherwise, nothing when quiet
(seqspectral.progress), and the long steps of the command line following it."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from seqspectral.cli.main import main
from seqspectral.progress import stage

CORPORA = Path(__file__).resolve().parents[1] / "corpora"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_stage(stream, show, n=3):
    with stage("counting", total=n, unit="shard", show=show, stream=stream) as bar:
        for _ in range(n):
            bar.update()
        bar.set_postfix_str("k=2")
    return stream.getvalue()


def test_not_a_terminal_one_line_per_stage_when_shown_nothing_otherwise():
    text = run_stage(io.StringIO(), True)
    assert text.count("\n") == 1 and "\r" not in text
    assert text.startswith("seqspectral: counting: 3/3 shards in ") and text.endswith(" s (k=2)\n")
    assert run_stage(io.StringIO(), None) == ""  # the library's default: bars on a terminal only
    assert run_stage(io.StringIO(), False) == ""


def test_a_terminal_gets_a_bar_and_no_line_unless_quiet():
    text = run_stage(Terminal(), True)
    assert "counting" in text and "\r" in text and "3/3" in text  # tqdm redraws the line in place
    assert "seqspectral: counting" not in text
    assert run_stage(Terminal(), None) != ""
    assert run_stage(Terminal(), False) == ""


def test_one_unit_an_unknown_total_and_no_units():
    stream = io.StringIO()
    with stage("features", None, "list", True, stream) as bar:
        bar.update(1)
    assert stream.getvalue().startswith("seqspectral: features: 1 list in ")
    stream = io.StringIO()
    with stage("tree models", show=True, stream=stream):
        sum(range(10**6))
    assert re.fullmatch(r"seqspectral: tree models: \d+\.\d s, \d+\.\d CPU s\n", stream.getvalue())


class Mean:
    """The smallest estimator jackknifing can clone: predicts the mean of what it was fitted on."""

    def __init__(self, shift=0.0):
        self.shift = shift

    def get_params(self, deep=False):
        return {"shift": self.shift}

    def fit(self, items):
        self.mean_ = sum(items) / len(items) + self.shift
        return self


def test_jackknifing_reports_its_folds(capsys):
    from seqspectral.jackknife import jackknife

    out = jackknife(Mean(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3, lambda m, held: [m.mean_] * len(held), progress=True)
    assert out == [4.5, 4.5, 3.5, 3.5, 2.5, 2.5]  # each fold predicted by the mean of the other two
    lines = capsys.readouterr().err.splitlines()  # a stage per fold: a line each in a log
    assert [line.split(":")[1] for line in lines] == [" jackknife fold 1/3", " jackknife fold 2/3", " jackknife fold 3/3"]
    jackknife(Mean(), [1.0, 2.0], 2, lambda m, held: [m.mean_] * len(held), progress=False)
    assert capsys.readouterr().err == ""


def test_lm_train_em_writes_lines_not_bars_into_a_log_and_nothing_when_quiet(capsys, tmp_path):
    args = ["lm", "train", str(CORPORA / "toy.pautomac.train"), "-o", str(tmp_path / "m.npz"), "--method", "em",
            "--states", "2", "--n-iter", "3"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "seqspectral: EM run 1/" in err and "iterations in" in err
    assert main([*args, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("quiet", [False, True])
def test_tree_em_reports_its_iterations(capsys, tmp_path, quiet):
    args = ["tree", "train", str(CORPORA / "ewt-sample.conllu"), "-o", str(tmp_path / "t.npz"), "--method", "em",
            "--states", "2", "--max-iter", "2"]
    assert main(args + (["--quiet"] if quiet else [])) == 0
    err = capsys.readouterr().err
    assert ("seqspectral: tree EM, 2 states: 2/2 iterations in" in err) != quiet


def test_steps_are_stages_of_their_own_in_a_log_and_advance_the_bar_on_a_terminal():
    log = io.StringIO()
    with stage("tag train", total=2, unit="epoch", show=True, stream=log) as bar:
        bar.step("dev 90.00%")
        bar.step()
    lines = log.getvalue().splitlines()  # a line per epoch, its own seconds; no closing line for the stage
    assert len(lines) == 2
    assert re.fullmatch(r"seqspectral: tag train: epoch 1/2 in \d+\.\d s, \d+\.\d CPU s \(dev 90\.00%\)", lines[0])
    assert re.fullmatch(r"seqspectral: tag train: epoch 2/2 in \d+\.\d s, \d+\.\d CPU s", lines[1])
    terminal = Terminal()
    with stage("tag train", total=2, unit="epoch", show=True, stream=terminal) as bar:
        bar.step("dev 90.00%")
        bar.step("dev 91.00%")
    assert "2/2" in terminal.getvalue() and "dev 91.00%" in terminal.getvalue()
    assert "seqspectral: tag train" not in terminal.getvalue()
    quiet = io.StringIO()
    with stage("tag train", total=2, unit="epoch", show=False, stream=quiet) as bar:
        bar.step("dev 90.00%")
    assert quiet.getvalue() == ""
