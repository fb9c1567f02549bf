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


def test_a_terminal_gets_a_bar_that_leaves_the_stage_time_behind_unless_quiet():
    text = run_stage(Terminal(), True)
    assert "counting" in text and "\r" in text and "3/3" in text  # tqdm redraws the line in place
    assert re.search(r"seqspectral: counting: 3/3 shards in \d+\.\d s, \d+\.\d CPU s \(k=2\)\n$", text)
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
    lines = capsys.readouterr().err.splitlines()  # a step per fold: a line each in a log
    assert [line.split(" in ")[0] for line in lines] == [f"seqspectral: jackknife: fold {f}/3" for f in (1, 2, 3)]
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
    assert terminal.getvalue().endswith("\n") and "seqspectral: tag train: 2/2 epochs in " in terminal.getvalue()
    quiet = io.StringIO()
    with stage("tag train", total=2, unit="epoch", show=False, stream=quiet) as bar:
        bar.step("dev 90.00%")
    assert quiet.getvalue() == ""


def test_an_interrupted_stage_is_not_reported_as_done():
    for stream in (io.StringIO(), Terminal()):
        with pytest.raises(KeyboardInterrupt), stage("parser", show=True, stream=stream):
            raise KeyboardInterrupt
        assert "seqspectral: parser" not in stream.getvalue()


def test_a_long_stage_is_announced_and_heartbeats_with_its_inner_stages(monkeypatch):
    """Off a terminal: a line after ANNOUNCE_AFTER s of silence, then one every HEARTBEAT s,
    saying what the inner stages (epochs, folds) have done; the clock is driven by hand."""
    from seqspectral import progress

    log = io.StringIO()
    with stage("rerank build: parser", show=True, stream=log) as outer:
        with stage("epochs", total=10, unit="epoch", inner=True) as epochs:
            epochs.update(3)
            t0 = outer._start
            progress._tick(t0 + 1.0)
            assert log.getvalue() == ""  # not yet: a short stage says nothing until it ends
            progress._tick(t0 + progress.ANNOUNCE_AFTER + 0.1)
            progress._tick(t0 + progress.ANNOUNCE_AFTER + 1.1)  # said once, not again within HEARTBEAT
            lines = log.getvalue().splitlines()
            assert len(lines) == 1
            assert re.fullmatch(r"seqspectral: rerank build: parser: running: \d+\.\d s, \d+\.\d CPU s "
                                r"\(epochs 3/10\)", lines[0])
            progress._said[0] = t0  # as if the last line were long ago
            progress._tick(t0 + progress.HEARTBEAT + 0.1)
            assert len(log.getvalue().splitlines()) == 2
    assert log.getvalue().splitlines()[-1].startswith("seqspectral: rerank build: parser: ")  # the closing line
    assert len(log.getvalue().splitlines()) == 3


def test_inner_stages_say_nothing_alone():
    log = io.StringIO()
    with stage("epochs", total=2, unit="epoch", inner=True, stream=log) as epochs:
        epochs.update(2)
    assert log.getvalue() == "" and epochs.mode == "off"
