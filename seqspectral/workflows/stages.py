"""Stages of a build: each declares what it requires and what it provides (as stanza's
processors declare the annotations they need and add), its key, its files, and how to
compute, save and load its result; :class:`Runner` runs a list of them in a directory,
keeping what is finished.

A **name** a stage requires or provides is either a column of the training sentences
(``train:upos``: the column holds values the stages after it may read; ``train:upos!``
after a stage replaced it with predicted values) or a result (``tagger:upos``, ``parser``,
``nbest:train``, ...). :func:`check_plan` refuses a list of stages in which a stage requires
a name that neither the input nor an earlier stage provides.

Adding a stage: subclass :class:`Stage` (``name``, ``requires``, ``provides``, ``files``,
``key_parts``, ``compute``, ``save``, ``load``), put an instance in the plan
(:func:`seqspectral.workflows.rerank_build.plan`) after the stages that provide what it
requires; its result is ``state.results[name]`` for every name it provides (a stage
providing several names returns a dict keyed by them).

A finished stage is recorded in the manifest (``build.json``) with its key (a hash of the
input files' bytes, the options it reads and the keys of the stages it requires) and the
sha256 of every file it wrote: a stage is kept only when both match, so a file damaged
after the build (cut in half, overwritten) is named and its stage rebuilt. What a stage's
``compute`` adds to the build's report (the choices it made on dev) is recorded with it and
given back to the report when the stage is kept.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from seqspectral.progress import stage as progress_stage

from .manifest import stage_files

def file_digest(path) -> str:
    """sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def key_of(*parts) -> str:
    """A stage key: a short hash of JSON-able parts."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:24]


@dataclass
class BuildState:
    """What the stages share: ``options``, the ``train`` and ``dev`` sentences, the
    ``inputs`` (digests of the files and the reading), the ``reading`` (a
    :class:`~seqspectral.corpus.Reading`, what the models record), the ``columns`` the training
    sentences carry, each stage's ``keys`` and ``results`` by provided name, the ``report``
    and the ``notes`` (messages for the user, returned as data)."""

    options: object
    train: list
    dev: list | None
    inputs: dict
    reading: object = None
    columns: set = field(default_factory=set)
    workers: int = 1
    keys: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)
    report: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def key(self, *names: str) -> list:
        """The keys of the stages that provided ``names`` (what a dependent stage's key names)."""
        return [self.keys.get(n) for n in names]


class Stage:
    """One stage (see the module docstring). A subclass sets ``name``, ``requires`` and
    ``provides`` and overrides the methods below; ``applies`` says whether the stage runs
    in this build (e.g. clusters only with ``clusters_from``)."""

    name: str = ""
    requires: tuple = ()
    provides: tuple = ()

    def applies(self, state: BuildState) -> bool:
        return True

    def files(self, state: BuildState) -> list[str]:
        """The files the stage writes in the build directory."""
        return [f"{self.name}.npz"]

    def key_parts(self, state: BuildState) -> tuple:
        """What the stage's result depends on (besides the stages it requires)."""
        return (state.inputs,)

    def compute(self, state: BuildState, runner: Runner):
        raise NotImplementedError

    def save(self, result, directory: Path) -> None:
        raise NotImplementedError

    def load(self, state: BuildState, directory: Path):
        raise NotImplementedError

    def units(self, state: BuildState) -> tuple:
        """``(total, unit)`` of the stage's progress (an epoch cap, say); ``(None, "step")``: unknown."""
        return None, "step"

    def after(self, result, state: BuildState) -> None:
        """What the stage adds to the state beside its results (report figures, columns)."""

    def run(self, state: BuildState, runner: Runner) -> None:
        key = key_of(self.name, self.key_parts(state), state.key(*self.requires))
        files = self.files(state)
        if runner.finished(self.name, key, files, state):
            runner.kept(self.name)
            result = self.load(state, runner.directory)
            state.report.update(runner.manifest["stages"][self.name].get("report", {}))  # what compute reported
        else:
            with runner.stage(self.name, *self.units(state)) as shown:
                runner.current = shown  # compute may note its progress there (an epoch, a fold)
                start, cpu, runner.extra_cpu = time.perf_counter(), time.process_time(), 0.0
                before = dict(state.report)
                result = self.compute(state, runner)
                self.save(result, runner.directory)
                reported = {k: v for k, v in state.report.items() if k not in before or before[k] is not v}
                runner.record(self.name, key, files, time.perf_counter() - start,
                              time.process_time() - cpu + runner.extra_cpu, reported)
                if runner.extra_cpu:
                    shown.set_postfix_str(f"and {runner.extra_cpu:.1f} CPU s in worker processes")
        for name in self.provides:
            state.keys[name] = key
            state.results[name] = result[name] if len(self.provides) > 1 else result
        self.after(result, state)


class ModelStage(Stage):
    """A stage whose result is one model file, ``NAME.npz``, of the :mod:`seqspectral.serialize`
    kind ``kind``."""

    kind: str = ""

    def save(self, result, directory: Path) -> None:
        from seqspectral import serialize

        serialize.save(directory / f"{self.name}.npz", result)

    def load(self, state: BuildState, directory: Path):
        from seqspectral import serialize

        return serialize.load(directory / f"{self.name}.npz", self.kind)


def check_plan(stages, given) -> None:
    """Refuse a plan in which a stage requires a name no earlier stage (or ``given``, the
    names the input provides) provides."""
    available = set(given)
    for s in stages:
        missing = [n for n in s.requires if n not in available]
        if missing:
            raise ValueError(f"stage {s.name} requires {', '.join(missing)}, which no earlier stage provides")
        available.update(s.provides)


class Runner:
    """The stages of one build directory and its manifest (see
    :mod:`seqspectral.workflows.manifest`): which are finished and kept, progress by the
    toolkit's rule (:mod:`seqspectral.progress`; ``progress`` its ``show``)."""

    def __init__(self, directory: Path, manifest: dict, progress: bool | None, stream=None, on_note=None):
        self.directory = Path(directory)
        self.manifest = manifest
        self.manifest.setdefault("stages", {})
        self.progress, self.stream = progress, stream
        self.on_note = on_note or (lambda message: None)
        self.extra_cpu = 0.0  # CPU seconds of worker processes during the current stage
        self.current = None  # the progress stage of the stage being computed

    def epoch_note(self, total: int):
        """An ``on_epoch`` callback noting ``epoch i/total`` (and its figures) on the current stage."""
        def on_epoch(record: dict) -> None:
            figures = ", ".join(f"{k} {v:.2f}" for k, v in record.items() if k != "epoch" and isinstance(v, float))
            if self.current is not None:
                if record["epoch"] > 0:  # epoch 0: the held-out figure before training
                    self.current.update()
                self.current.set_postfix_str(f"epoch {record['epoch']}/{total}" + (f": {figures}" if figures else ""))

        return on_epoch

    def path(self, name: str) -> Path:
        return self.directory / name

    def finished(self, name: str, key: str, files: list[str], state: BuildState | None = None) -> bool:
        """Whether stage ``name`` is recorded with ``key`` and every file is there with the bytes
        recorded; a file that is not is named in a note (and the stage is run again)."""
        from seqspectral.serialize import not_a_file

        from .reading import InputError

        for f in files:  # a stage file replaced by a link to a device, a directory: refused, never read or written
            what = not_a_file(self.path(f))
            if what is not None:
                raise InputError(f"{self.path(f)}: {what}, not a file of this build; remove it and run again")
        entry = self.manifest["stages"].get(name)
        if not entry or entry["key"] != key:
            return False
        for f in files:
            path = self.path(f)
            recorded = stage_files(entry).get(f, "")
            if not path.is_file():
                self.note(f"{path}: missing; the stage {name} is built again")
                return False
            if recorded and file_digest(path) != recorded:
                self.note(f"{path}: damaged (its bytes are not those the build recorded); the stage {name} is "
                          "built again")
                return False
        return True

    def note(self, message: str) -> None:
        self.on_note(message)

    def stage(self, desc: str, total: int | None = None, unit: str = "step"):
        """A :func:`seqspectral.progress.stage` of this build, announced: off a terminal a line
        when it starts, a heartbeat while it runs (with the epochs or folds done inside it), its
        closing line only when it has finished (an interrupted or failed one says so instead)."""
        return progress_stage(f"rerank build: {desc}", total, unit, show=self.progress, stream=self.stream,
                              announce=True)

    def kept(self, name: str) -> None:
        with progress_stage(f"rerank build: {name}", show=self.progress, stream=self.stream) as s:
            s.set_postfix_str("kept: finished earlier")

    def record(self, name: str, key: str, files: list[str], wall: float, cpu: float, report=None) -> None:
        """Record a finished stage (``report``: what its compute added to the build's report, given
        back when the stage is kept by a later build)."""
        from .manifest import write_manifest

        self.manifest["stages"][name] = {"key": key, "files": {f: file_digest(self.path(f)) for f in files},
                                         "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                                         **({"report": json.loads(json.dumps(report))} if report else {})}
        write_manifest(self.directory, self.manifest)
