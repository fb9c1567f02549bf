"""The model does not depend on where or how the input is counted: --workers 1 and 3 (many
shards each: in this process, and a pool of processes taking more shards than it has
workers) and a two-worker Dask cluster give the arrays of the one-process command, with and
without --dev; two equal runs give byte-identical model files."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from seqspectral.automata.planted import planted_hmm
from seqspectral.cli.main import main
from seqspectral.corpus import write_pautomac

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
TRAIN, DEV = CORPORA / "ewt-sample.conllu", CORPORA / "ewt-sample-dev.conllu"
PLACES = [["--workers", "1"], ["--workers", "3"], "dask"]


@pytest.fixture(scope="module")
def pautomac(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("determinism")
    hmm = planted_hmm(3, 5, seed=2)
    train, dev = tmp / "p.pautomac.train", tmp / "p.pautomac.dev"
    write_pautomac(train, hmm.sample(2000, random_state=0), alphabet_size=5)
    write_pautomac(dev, hmm.sample(300, random_state=1), alphabet_size=5)
    return train, dev


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        yield c.scheduler_address


def _arrays(path) -> dict:
    with zipfile.ZipFile(path) as zf:
        return {i.filename: zf.read(i.filename) for i in zf.infolist() if i.filename != "__header__.npy"}


def _run(tmp_path, name, argv, place, cluster_address=None) -> dict:
    out = tmp_path / name
    where = [] if place is None else ["--scheduler", cluster_address] if place == "dask" else place
    sharded = [] if place is None else ["--shard-mb", "0.02"]  # many shards, more than workers
    assert main([*argv(out), *where, *sharded, "--quiet"]) == 0
    return _arrays(out)


COMMANDS = {
    "lm": lambda files, dev: lambda out: ["lm", "train", str(files[0]), "-o", str(out), "--method", "spectral-substring",
                                          "--basis-length", "2", *(["--dev", str(files[1])] if dev else [])],
    "lm-ngram": lambda files, dev: lambda out: ["lm", "train", str(files[0]), "-o", str(out), "--method", "ngram",
                                                *(["--dev", str(files[1])] if dev else [])],
    "tree": lambda files, dev: lambda out: ["tree", "train", str(TRAIN), "-o", str(out),
                                            *(["--dev", str(DEV)] if dev else [])],
    "embed": lambda files, dev: lambda out: ["embed", str(TRAIN), "-o", str(out) + ".txt", "--model", str(out),
                                             "--dim", "8"],
}


@pytest.mark.parametrize("dev", [False, True])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_workers_and_dask_give_the_one_process_model(tmp_path, pautomac, cluster, command, dev):
    if command == "embed" and dev:
        pytest.skip("embed has no --dev")
    argv = COMMANDS[command](pautomac, dev)
    want = _run(tmp_path, "one.npz", argv, None)
    for i, place in enumerate(PLACES):
        got = _run(tmp_path, f"m{i}.npz", argv, place, cluster)
        assert got == want, (place, [k for k in want if got.get(k) != want[k]])


@pytest.mark.parametrize("argv", [
    ["lm", "train", str(TRAIN), "--method", "spectral"],
    ["tree", "train", str(TRAIN)],
    ["tag", "train", str(TRAIN), "--epochs", "1", "--hash-bits", "12"],
])
def test_two_equal_runs_write_byte_identical_model_files(tmp_path, argv):
    for name in ("a.npz", "b.npz"):
        assert main([*argv, "-o", str(tmp_path / name), "--quiet"]) == 0
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
