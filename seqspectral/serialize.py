"""Model files: one ``.npz`` of arrays plus a JSON header, never a pickle, and the
registry of model kinds.

The header (kind, format version, hyper-parameters, anything JSON) is stored as a uint8
array ``__header__`` inside the same ``.npz``, so a model is one file. Every model class
that can be saved defines

* ``kind`` — a class attribute naming it in files,
* ``to_state(self) -> (header: dict, arrays: dict[str, np.ndarray])``,
* ``from_state(cls, header, arrays)`` — a classmethod rebuilding the model,

and is listed once in :data:`KINDS`. A model holding other models (a mixture, the
unknown-symbol wrapper, a trained language model) stores each with :func:`nest`, which puts
the inner arrays under prefixed names (``model/operators``) and the inner header under a
key of its own; :func:`unnest` reverses it. So no code outside a kind knows its layout.
"""

from __future__ import annotations

import importlib
import json
import zipfile
from pathlib import Path

import numpy as np

from .io import atomic_open

FORMAT_VERSION = 1
_HEADER_KEY = "__header__"

#: model kind -> "module:Class" (imported only when a file of that kind is read)
KINDS = {
    "weighted_automaton": "seqspectral.automata.wfa:WeightedAutomaton",
    "hmm": "seqspectral.automata.hmm:HMM",
    "ngram": "seqspectral.lm.ngram:NGramLM",
    "interpolated": "seqspectral.lm.mixture:Interpolated",
    "unknown_escape": "seqspectral.lm.unknown:UnknownEscape",
    "trained_lm": "seqspectral.lm.trained:TrainedLM",
    "cca_embeddings": "seqspectral.embeddings.cca:CCAEmbeddings",
    "spectral_tree_model": "seqspectral.trees.spectral:SpectralTreeModel",
    "em_tree_model": "seqspectral.trees.em:EMTreeModel",
    "dependency_parser": "seqspectral.parsing.parser:DependencyParser",
    "dependency_labeler": "seqspectral.parsing.labeler:DependencyLabeler",
    "reranker": "seqspectral.reranking.reranker:Reranker",
    "tagger": "seqspectral.tagging.tagger:PerceptronTagger",
}

#: what any model may record about its training data, as header key -> "module:Class" (the
#: model's attribute is the key with ``_`` appended; the class has ``to_json``/``from_json``)
_RECORDS = {"reading": "seqspectral.corpus.reading:Reading",
            "input_profile": "seqspectral.corpus.columns:ColumnProfile"}


class ModelFileError(ValueError):
    """A model file that is missing, damaged, of another kind or not a seqspectral model."""

    user_facing = True


def model_class(kind: str):
    """The class registered for ``kind``."""
    try:
        module, name = KINDS[kind].split(":")
    except KeyError:
        raise ModelFileError(f"unknown model kind {kind!r}") from None
    return getattr(importlib.import_module(module), name)


def state(model) -> tuple[dict, dict[str, np.ndarray]]:
    """(header with ``kind``, arrays) of a registered model."""
    kind = getattr(type(model), "kind", None)
    if kind not in KINDS:
        raise TypeError(f"{type(model).__name__} is not a registered model kind")
    header, arrays = model.to_state()
    for key in _RECORDS:  # how its training data was read, the columns it reads (seqspectral.corpus)
        record = getattr(model, key + "_", None)
        if record is not None:
            header = {**header, key: record.to_json()}
    return {"kind": kind, **header}, arrays


def from_state(header: dict, arrays: dict[str, np.ndarray]):
    """The model a :func:`state` describes (with the records of :data:`_RECORDS` it has)."""
    model = model_class(header["kind"]).from_state(header, arrays)
    for key, name in _RECORDS.items():
        if header.get(key) is not None:
            module, cls = name.split(":")
            setattr(model, key + "_", getattr(importlib.import_module(module), cls).from_json(header[key]))
    return model


def nest(prefix: str, model) -> tuple[dict, dict[str, np.ndarray]]:
    """An inner model's header and its arrays renamed ``prefix/name``."""
    header, arrays = state(model)
    return header, {f"{prefix}/{k}": v for k, v in arrays.items()}


def unnest(prefix: str, header: dict, arrays: dict[str, np.ndarray]):
    """The inner model stored by :func:`nest` under ``prefix``."""
    start = prefix + "/"
    return from_state(header, {k[len(start):]: v for k, v in arrays.items() if k.startswith(start)})


def save(path: str | Path, model) -> None:
    """Write a registered model atomically."""
    header, arrays = state(model)
    save_arrays(path, header, arrays)


def load(path: str | Path, kind: str | tuple[str, ...] | None = None):
    """Read a model file (its kind checked against ``kind`` when given). Never unpickles."""
    header, arrays = load_arrays(path, kind)
    if header["kind"] not in KINDS:
        raise ModelFileError(f"{path}: unknown model kind {header['kind']!r}")
    try:
        return from_state(header, arrays)
    except ModelFileError:
        raise
    except (KeyError, ValueError, TypeError, IndexError) as e:
        what = f"missing {e}" if isinstance(e, KeyError) else str(e)
        raise ModelFileError(f"{path}: damaged {header['kind']!r} model file ({what})") from None


def save_arrays(path: str | Path, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and ``header`` (plus the format version) atomically."""
    if _HEADER_KEY in arrays:
        raise ValueError(f"array name {_HEADER_KEY!r} is reserved")
    full = {**header, "format_version": FORMAT_VERSION}
    blob = np.frombuffer(json.dumps(full, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)
    for name, a in arrays.items():
        if np.asarray(a).dtype == object:
            raise TypeError(f"array {name!r} has dtype object, which cannot be saved without pickling")
    with atomic_open(path, "wb") as f:
        np.savez_compressed(f, **{_HEADER_KEY: blob}, **arrays)


def load_arrays(path: str | Path, kind: str | tuple[str, ...] | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """(header, arrays) of a model file; ``kind`` (one or several) is checked when given."""
    path = Path(path)
    if path.is_dir():
        raise ModelFileError(f"{path}: is a directory, not a model file")
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    if not zipfile.is_zipfile(path):
        raise ModelFileError(f"{path}: not a seqspectral model file (not an .npz archive)")
    try:
        _check_declared_sizes(path)
        with np.load(path, allow_pickle=False) as npz:
            if _HEADER_KEY not in npz.files:
                raise ModelFileError(f"{path}: not a seqspectral model (no header)")
            header = json.loads(npz[_HEADER_KEY].tobytes().decode("utf-8"))
            arrays = {name: npz[name] for name in npz.files if name != _HEADER_KEY}
    except ModelFileError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, UnicodeDecodeError, KeyError) as e:
        raise ModelFileError(f"{path}: damaged or not a seqspectral model file ({type(e).__name__}: {e})") from None
    if not isinstance(header, dict) or "kind" not in header:
        raise ModelFileError(f"{path}: header has no model kind")
    if header.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path}: unsupported model format version {header.get('format_version')!r}")
    wanted = (kind,) if isinstance(kind, str) else kind
    if wanted is not None and header["kind"] not in wanted:
        raise ModelFileError(f"{path}: a {header['kind']!r} model, expected {' or '.join(wanted)}")
    return header, arrays


def _check_declared_sizes(path: Path) -> None:
    """Refuse members whose ``.npy`` header declares more bytes than the member holds
    (a damaged or hostile file would otherwise allocate them before failing)."""
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            with zf.open(info) as f:
                version = np.lib.format.read_magic(f)
                reader = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
                if version not in reader:
                    raise ModelFileError(f"{path}: member {info.filename!r} has an unsupported .npy version {version}")
                shape, _, dtype = reader[version](f)
                if dtype.hasobject:
                    raise ModelFileError(f"{path}: member {info.filename!r} holds pickled (object) data; "
                                         "seqspectral model files never do")
                declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
                if declared > info.file_size:
                    raise ModelFileError(f"{path}: member {info.filename!r} declares shape {shape} "
                                         f"({declared} bytes) but holds {info.file_size}")
