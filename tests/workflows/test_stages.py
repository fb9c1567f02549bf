"""The stage machinery of a build (seqspectral.workflows.stages): plans checked against what
each stage requires and provides, finished stages kept, a damaged stage file named and
rebuilt, progress lines off a terminal (start, heartbeat, end; no end for an interrupted stage)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from seqspectral.workflows import stages
from seqspectral.workflows.manifest import read_manifest
from tests.workflows.lines import Lines


class NpyStage(stages.Stage):
    """A stage of the test whose result is one array, in NAME.npy."""

    def files(self, state):
        return [f"{self.name}.npy"]

    def save(self, result, directory):
        np.save(directory / f"{self.name}.npy", result)

    def load(self, state, directory):
        return np.load(directory / f"{self.name}.npy")


class Squares(NpyStage):
    """The squares of 0..n-1."""

    name, requires, provides = "squares", ("train:form",), ("squares",)

    def __init__(self, n=5, pause=0.0, fail=None):
        self.n, self.pause, self.fail, self.computed = n, pause, fail, 0

    def key_parts(self, state):
        return (state.inputs, self.n)

    def compute(self, state, runner):
        self.computed += 1
        time.sleep(self.pause)
        if self.fail is not None:
            raise self.fail
        return np.arange(self.n) ** 2


class Total(NpyStage):
    name, requires, provides = "total", ("squares",), ("total",)

    def compute(self, state, runner):
        return np.array([state.results["squares"].sum()])


def _run(directory, plan, stream=None, notes=None):
    state = stages.BuildState(None, [], None, {"train": "digest"}, columns={"form"})
    stages.check_plan(plan, {"train:form"})
    runner = stages.Runner(directory, read_manifest(directory), progress=True, stream=stream or Lines(),
                           on_note=(notes.append if notes is not None else None))
    for s in plan:
        s.run(state, runner)
    return state


def test_a_plan_requiring_what_nothing_provides_is_refused():
    with pytest.raises(ValueError, match="stage total requires squares"):
        stages.check_plan([Total(), Squares()], {"train:form"})
    with pytest.raises(ValueError, match="stage squares requires train:form"):
        stages.check_plan([Squares()], set())


def test_finished_stages_are_kept_and_a_damaged_file_is_named_and_rebuilt(tmp_path):
    squares = Squares()
    state = _run(tmp_path, [squares, Total()])
    assert state.results["total"][0] == sum(i * i for i in range(5)) and squares.computed == 1
    recorded = read_manifest(tmp_path)["stages"]["squares"]["files"]
    assert recorded == {"squares.npy": stages.file_digest(tmp_path / "squares.npy")}

    again = Squares()
    _run(tmp_path, [again, Total()])
    assert again.computed == 0  # kept

    data = (tmp_path / "squares.npy").read_bytes()
    (tmp_path / "squares.npy").write_bytes(data[: len(data) // 2])  # cut in half
    notes, rebuilt = [], Squares()
    state = _run(tmp_path, [rebuilt, Total()], notes=notes)
    assert rebuilt.computed == 1 and state.results["total"][0] == 30
    assert notes == [f"{tmp_path / 'squares.npy'}: damaged (its bytes are not those the build recorded); the stage "
                     "squares is built again"]
    (tmp_path / "total.npy").unlink()
    notes = []
    _run(tmp_path, [Squares(), Total()], notes=notes)
    assert notes == [f"{tmp_path / 'total.npy'}: missing; the stage total is built again"]


def test_off_a_terminal_a_stage_says_when_it_starts_beats_and_ends(tmp_path, monkeypatch):
    from seqspectral import progress

    monkeypatch.setattr(progress, "HEARTBEAT", 0.05)
    monkeypatch.setattr(progress, "_TICK", 0.01)
    shown = Lines()
    _run(tmp_path, [Squares(pause=0.3)], stream=shown)
    lines = shown.lines
    assert lines[0] == "seqspectral: rerank build: squares: started"
    assert any(line.startswith("seqspectral: rerank build: squares: running: ") for line in lines[1:-1])
    assert lines[-1].startswith("seqspectral: rerank build: squares: ") and " CPU s" in lines[-1]


@pytest.mark.parametrize("error, said", [(KeyboardInterrupt(), ["interrupted after "]), (RuntimeError("x"), [])])
def test_an_interrupted_stage_is_never_reported_as_finished(tmp_path, error, said):
    """Interrupted: it says it did not finish; stopped by an error: nothing more (the error says why)."""
    shown = Lines()
    with pytest.raises(type(error)):
        _run(tmp_path, [Squares(fail=error)], stream=shown)
    assert shown.lines[0].endswith("squares: started") and len(shown.lines) == 1 + len(said)
    for line, start in zip(shown.lines[1:], said):
        assert line.startswith(f"seqspectral: rerank build: squares: {start}") and line.endswith("not finished")
    assert "squares" not in read_manifest(tmp_path)["stages"] and not (tmp_path / "squares.npy").exists()
