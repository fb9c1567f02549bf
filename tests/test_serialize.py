"""Model files are read through their kind's schema: only declared members, each checked
(dtype, shape against the header, size) before decompressing; damaged files are ModelFileError."""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.automata.wfa import WeightedAutomaton
from seqspectral.corpus import Vocabulary
from seqspectral.serialize import ModelFileError


def _wfa(n_states=3, n_symbols=4):
    rng = np.random.default_rng(0)
    ops = rng.random((n_symbols + Vocabulary.N_RESERVED, n_states, n_states)) / (4 * n_states * n_symbols)
    ops[Vocabulary.EOS_ID] = 0.0
    vocab = Vocabulary([f"s{i}" for i in range(n_symbols)])
    return WeightedAutomaton(np.ones(n_states) / n_states, np.full(n_states, 0.5), ops, vocab)


def _members(path) -> dict:
    """name (without .npy) -> raw .npy bytes."""
    with zipfile.ZipFile(path) as zf:
        return {i.filename[:-4]: zf.read(i) for i in zf.infolist()}


def _npy(array) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def _write(path, members: dict, compression=zipfile.ZIP_DEFLATED) -> None:
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members.items():
            zf.writestr(name + ".npy", data)


def _header(members) -> dict:
    return json.loads(np.lib.format.read_array(io.BytesIO(members["__header__"])).tobytes())


def _with_header(members, header) -> dict:
    return {**members, "__header__": _npy(np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))}


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "wfa.npz"
    serialize.save(path, _wfa())
    return path


def test_a_saved_model_loads_back(saved):
    back = serialize.load(saved, kind="weighted_automaton")
    np.testing.assert_array_equal(back.operators, _wfa().operators)


def test_two_saves_of_one_model_are_byte_identical(tmp_path):
    serialize.save(tmp_path / "a.npz", _wfa())
    serialize.save(tmp_path / "b.npz", _wfa())
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_files_written_by_numpy_savez_still_load(tmp_path):
    header, arrays = serialize.state(_wfa())
    blob = np.frombuffer(json.dumps({**header, "format_version": 1}).encode(), dtype=np.uint8)
    np.savez_compressed(tmp_path / "old.npz", __header__=blob, **arrays)
    assert serialize.load(tmp_path / "old.npz").n_states == 3


@pytest.mark.parametrize("change", [
    lambda m: {**m, "operators": _npy(np.zeros((6, 3, 2)))},            # wrong shape
    lambda m: {**m, "operators": _npy(np.zeros((7, 3, 3)))},            # more ids than the vocabulary
    lambda m: {**m, "initial": _npy(np.arange(3))},                     # wrong dtype
    lambda m: {**m, "initial": _npy(np.array([0.1, np.nan, 0.2]))},     # NaN
    lambda m: {**m, "final": _npy(np.array([0.1, np.inf, 0.2]))},       # infinity
    lambda m: {k: v for k, v in m.items() if k != "final"},             # missing member
    lambda m: {**m, "final": _npy(np.ones(3))[:-8]},                    # truncated member
    lambda m: _with_header(m, {**_header(m), "kind": ["hmm"]}),          # kind not a string
    lambda m: _with_header(m, {**_header(m), "kind": "nonsense"}),
    lambda m: _with_header(m, {**_header(m), "vocabulary": {"symbols": "abc"}}),
    lambda m: _with_header(m, {**_header(m), "vocabulary": 7}),
    lambda m: {**m, "__header__": _npy(np.frombuffer(b"[" * 200_000, dtype=np.uint8))},  # nested 200,000 deep
    lambda m: {**m, "__header__": _npy(np.frombuffer(b'{"kind": 1' + b"]" * 100, dtype=np.uint8))},
])
def test_damaged_models_are_model_file_errors_naming_the_file(saved, tmp_path, change):
    path = tmp_path / "bad.npz"
    _write(path, change(_members(saved)))
    with pytest.raises(ModelFileError, match="bad.npz"):
        serialize.load(path)


def test_flipped_bytes_in_a_deflate_stream_are_a_model_file_error(saved, tmp_path):
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as zf:
        info = zf.getinfo("operators.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + 5, start + 40):
        data[i] ^= 0xFF
    (tmp_path / "flipped.npz").write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="flipped.npz"):
        serialize.load(tmp_path / "flipped.npz")


def test_members_the_kind_does_not_declare_are_refused_never_decompressed(saved, tmp_path):
    members = _members(saved)
    path = tmp_path / "bomb.npz"
    _write(path, {**members, "extra": _npy(np.zeros(100 << 20, dtype=np.uint8))})  # 100 MB of zeros, ~100 KB
    assert path.stat().st_size < 2 << 20
    tracemalloc.start()
    with pytest.raises(ModelFileError, match=r"bomb.npz: member 'extra.npy' is not part of a model of this kind"):
        serialize.load(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 10 << 20


def test_an_oversized_header_is_refused_before_reading_it(saved, tmp_path, monkeypatch):
    monkeypatch.setattr(serialize, "MAX_HEADER_BYTES", 1000)
    header = _header(_members(saved))
    padded = json.dumps(header) + " " * 5000
    _write(tmp_path / "big.npz", {**_members(saved), "__header__": _npy(np.frombuffer(padded.encode(), np.uint8))})
    with pytest.raises(ModelFileError, match="at most 1000"):
        serialize.load(tmp_path / "big.npz")


def test_a_model_of_another_kind_is_refused_by_kind(saved):
    with pytest.raises(ModelFileError, match="'weighted_automaton' model, expected 'trained_lm'"):
        serialize.load(saved, kind="trained_lm")


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_members_compressed_other_than_by_deflate_are_refused(saved, tmp_path, method):
    _write(tmp_path / "other.npz", _members(saved), compression=method)
    with pytest.raises(ModelFileError, match="not deflate"):
        serialize.load(tmp_path / "other.npz")
