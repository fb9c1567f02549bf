"""Model files: one ``.npz`` of arrays plus a JSON header, never a pickle, and the
registry of model kinds.

The header (kind, format version, hyper-parameters, anything JSON) is stored as a uint8
array ``__header__`` inside the same ``.npz``, so a model is one file. Every model class
that can be saved defines

* ``kind`` — a class attribute naming it in files,
* ``to_state(self) -> (header: dict, arrays: dict[str, np.ndarray])``,
* ``from_state(cls, header, arrays)`` — a classmethod rebuilding the model,

* ``schema(cls, header) -> Schema`` — a classmethod declaring the arrays it needs, each
  with its dtype and shape in terms of header values (:class:`Member`, :class:`Schema`),

and is listed once in :data:`KINDS`. A model holding other models (a mixture, the
unknown-symbol wrapper, a trained language model) stores each with :func:`nest`, which puts
the inner arrays under prefixed names (``model/operators``) and the inner header under a
key of its own; :func:`unnest` and :func:`nested_schema` reverse it. So no code outside a
kind knows its layout.

Reading is bounded by the schema: the header's size and nesting are limited, then only the
members the kind declares are read, each checked (dtype, shape, its size in the archive,
the compression method) before one byte of it is decompressed, float arrays refused when
they hold NaN or infinity, and the model's hyper-parameters checked. Any fault is a
:class:`ModelFileError` naming the file (the command line exits with status 2).
"""

from __future__ import annotations

import importlib
import json
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .io import atomic_open

FORMAT_VERSION = 1
_HEADER_KEY = "__header__"
#: the largest header read (JSON bytes: hyper-parameters and vocabularies)
MAX_HEADER_BYTES = 64 << 20
#: the deepest nesting of lists and objects in a header
MAX_HEADER_DEPTH = 64
#: the most members an archive may list
MAX_MEMBERS = 1024
#: the largest size a header may give an array dimension
MAX_DIM = 1 << 31

#: model kind -> "module:Class" (imported only when a file of that kind is read)
KINDS = {
    "weighted_automaton": "seqspectral.automata.wfa:WeightedAutomaton",
    "hmm": "seqspectral.automata.hmm:HMM",
    "ngram": "seqspectral.lm.ngram:NGramLM",
    "interpolated": "seqspectral.lm.mixture:Interpolated",
    "unknown_escape": "seqspectral.lm.unknown:UnknownEscape",
    "trained_lm": "seqspectral.lm.trained:TrainedLM",
    "cca_embeddings": "seqspectral.embeddings.cca:CCAEmbeddings",
    "word_clusters": "seqspectral.embeddings.clusters:WordClusters",
    "spectral_tree_model": "seqspectral.dependency_trees.spectral:SpectralTreeModel",
    "em_tree_model": "seqspectral.dependency_trees.em:EMTreeModel",
    "dependency_parser": "seqspectral.parsing.parser:DependencyParser",
    "dependency_labeler": "seqspectral.parsing.labeler:DependencyLabeler",
    "reranker": "seqspectral.reranking.reranker:Reranker",
    "tagger": "seqspectral.tagging.tagger:PerceptronTagger",
    "markov_pcfg": "seqspectral.constituency.pcfg:MarkovPCFG",
    "spectral_lpcfg": "seqspectral.constituency.spectral:SpectralLPCFG",
    "em_lpcfg": "seqspectral.constituency.em:EMLPCFG",
    "features_tagger": "seqspectral.tagging.features:FeaturesTagger",
    "lemmatiser": "seqspectral.tagging.lemmatiser:Lemmatiser",
    "column_taggers": "seqspectral.tagging.columns:ColumnTaggers",
    "relation_features": "seqspectral.tagging.relation_features:RelationFeatures",
}
#: the kinds that score sentences as trees (``--tree-model``) and as sequences (``--lm``)
TREE_MODEL_KINDS = ("spectral_tree_model", "em_tree_model")
LANGUAGE_MODEL_KINDS = ("trained_lm", "weighted_automaton", "hmm", "ngram", "interpolated", "unknown_escape")

#: what any model may record about its training data, as header key -> "module:Class" (the
#: model's attribute is the key with ``_`` appended; the class has ``to_json``/``from_json``)
_RECORDS = {"reading": "seqspectral.corpus.reading:Reading",
            "input_profile": "seqspectral.corpus.columns:ColumnProfile"}


class ModelFileError(ValueError):
    """A model file that is missing, damaged, of another kind or not a seqspectral model."""

    user_facing = True


# -- schemas: what a kind reads ------------------------------------------------------------


@dataclass(frozen=True)
class Member:
    """One array of a model file: numpy dtype kinds accepted (``"f"`` float, ``"iu"``
    integers), the shape (an int fixed by the header, a name unified across the file — the
    same name, the same size — or None: any), whether NaN/inf are refused (floats), whether
    the member may be absent (files of earlier versions), and for integer arrays the range
    ``[low, high)`` of their values (``high`` an int or a dimension name)."""

    kinds: str
    shape: tuple
    finite: bool = True
    optional: bool = False
    values: tuple | None = None


@dataclass(frozen=True)
class Value:
    """A value of the header that the model reads when it is used (not only when it is
    loaded): its JSON type — ``"number"`` (finite), ``"string"``, ``"strings"`` (a list of
    strings) — and for a string the choices. Absent values are left to the kind (files of
    earlier versions)."""

    type: str
    choices: tuple | None = None


@dataclass
class Schema:
    """The members a model file of one kind holds, the dimensions its header fixes (name ->
    size, unified with the members' shapes and with nested models' dimensions) and the header
    values checked before the model is built (key -> :class:`Value`)."""

    members: dict = field(default_factory=dict)
    dims: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)

    def merged(self, other: "Schema") -> "Schema":
        dims = dict(self.dims)
        for name, size in other.dims.items():
            if dims.setdefault(name, size) != size:
                raise ModelFileError(f"{name} is {dims[name]} in one part of the model and {size} in another")
        return Schema({**self.members, **other.members}, dims, {**self.values, **other.values})


def schema_of(header: dict) -> Schema:
    """The :class:`Schema` of the model ``header`` describes (its kind checked)."""
    kind = header.get("kind") if isinstance(header, dict) else None
    if not isinstance(kind, str):
        raise ModelFileError(f"header has no model kind (got {type(kind).__name__})")
    schema = model_class(kind).schema(header)
    for key, value in schema.values.items():
        if key in header:
            _check_value(key, header[key], value)
    return schema


_VALUE_TYPES = {"number": "a finite number", "string": "a string", "strings": "a list of strings"}


def _check_value(key: str, got, value: Value) -> None:
    import math

    if value.type == "number":
        ok = isinstance(got, (int, float)) and not isinstance(got, bool) and math.isfinite(got)
    elif value.type == "strings":
        ok = isinstance(got, list) and all(isinstance(x, str) for x in got)
    else:
        ok = isinstance(got, str) and (value.choices is None or got in value.choices)
    if not ok:
        expected = f"one of {', '.join(map(repr, value.choices))}" if value.choices else _VALUE_TYPES[value.type]
        raise ModelFileError(f"header value {key!r} is {_short(got)}, expected {expected}")


def nested_schema(prefix: str, header) -> Schema:
    """The schema of an inner model stored by :func:`nest` under ``prefix``."""
    if not isinstance(header, dict):
        raise ModelFileError(f"the {prefix!r} part of the header is not an object")
    inner = schema_of(header)
    return Schema({f"{prefix}/{k}": v for k, v in inner.members.items()}, inner.dims)  # values: checked by schema_of


def size(value, what: str, low: int = 0, high: int = MAX_DIM) -> int:
    """A header value that sets a size or count: an integer in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ModelFileError(f"{what} must be an integer in {low}..{high}, not {_short(value)}")
    return value


def vocabulary_size(value, what: str = "vocabulary") -> int:
    """The number of ids (reserved ones included) of a vocabulary stored by ``Vocabulary.to_json``."""
    from .corpus import Vocabulary

    symbols = value.get("symbols") if isinstance(value, dict) else None
    if not isinstance(symbols, list):
        raise ModelFileError(f"{what} is not a vocabulary (an object with a list 'symbols')")
    return len(symbols) + Vocabulary.N_RESERVED


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def model_class(kind: str):
    """The class registered for ``kind``."""
    try:
        module, name = KINDS[kind].split(":")
    except (KeyError, TypeError):
        raise ModelFileError(f"unknown model kind {_short(kind)}") from None
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
    """The model a :func:`state` describes (its hyper-parameters checked; with the records of
    :data:`_RECORDS` it has)."""
    model = model_class(header["kind"]).from_state(header, arrays)
    validate = getattr(model, "_validate_params", None)
    if validate is not None:
        validate()
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
    """Read a model file (its kind checked against ``kind`` when given). Never unpickles;
    reads only what the kind's schema declares (module docstring)."""
    header, arrays = load_arrays(path, kind)
    try:
        return from_state(header, arrays)
    except ModelFileError as e:
        raise ModelFileError(f"{path}: damaged {header['kind']!r} model file ({e})") from None
    except (KeyError, ValueError, TypeError, IndexError, AttributeError, OverflowError) as e:
        what = f"missing {e}" if isinstance(e, KeyError) else str(e)
        raise ModelFileError(f"{path}: damaged {header['kind']!r} model file ({what})") from None


def save_arrays(path: str | Path, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and ``header`` (plus the format version) atomically. The archive's
    bytes depend on the content only (members in a fixed order, a fixed timestamp), so two
    equal models give byte-identical files."""
    if _HEADER_KEY in arrays:
        raise ValueError(f"array name {_HEADER_KEY!r} is reserved")
    full = {**header, "format_version": FORMAT_VERSION}
    members = {_HEADER_KEY: np.frombuffer(json.dumps(full, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)}
    for name, a in arrays.items():
        if np.asarray(a).dtype == object:
            raise TypeError(f"array {name!r} has dtype object, which cannot be saved without pickling")
        members[name] = np.asarray(a)
    with atomic_open(path, "wb") as f, zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, a in members.items():
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with zf.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, a, allow_pickle=False)


def load_arrays(path: str | Path, kind: str | tuple[str, ...] | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """(header, arrays) of a model file: the header checked (``kind``, one or several, when
    given), then the members its kind's schema declares, checked and read."""
    path = Path(path)
    _check_regular_file(path)
    if not zipfile.is_zipfile(path):
        raise ModelFileError(f"{path}: not a seqspectral model file (not an .npz archive)")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_MEMBERS:
                raise ModelFileError(f"{len(infos)} members (a model file has at most {MAX_MEMBERS})")
            by_name = {info.filename: info for info in infos}
            header = _read_header(zf, by_name)
            wanted = (kind,) if isinstance(kind, str) else kind
            if wanted is not None and header["kind"] not in wanted:
                raise ModelFileError(f"a {header['kind']!r} model, expected {' or '.join(map(repr, wanted))}")
            schema = schema_of(header)
            arrays = _read_members(zf, by_name, schema)
    except ModelFileError as e:
        raise ModelFileError(f"{path}: {e}") from None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
        what = f"missing {e}" if isinstance(e, KeyError) else f"{type(e).__name__}: {e}"
        raise ModelFileError(f"{path}: damaged model file header ({what})") from None
    except (OSError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, zlib.error) as e:
        raise ModelFileError(f"{path}: damaged or not a seqspectral model file ({type(e).__name__}: {e})") from None
    return header, arrays


def not_a_file(path) -> str | None:
    """What ``path`` is when it is there but not a regular file (a link followed): "a
    character device (a link to /dev/zero)", "a directory", ...; None for a regular file or
    nothing at all. A file the toolkit reads or keeps must be a regular file: reading a device
    may never end."""
    import os
    import stat

    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "a link to a missing file" if path.is_symlink() else None
    if stat.S_ISREG(mode):
        return None
    what = ("a directory" if stat.S_ISDIR(mode) else "a character device" if stat.S_ISCHR(mode) else
            "a block device" if stat.S_ISBLK(mode) else "a pipe" if stat.S_ISFIFO(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return what + (f" (a link to {os.path.realpath(path)})" if path.is_symlink() else "")


def _check_regular_file(path: Path) -> None:
    """Refuse a path that is not a regular file, saying what it is (a link followed)."""
    what = not_a_file(path)
    if what is None and not path.exists():
        raise ModelFileError(f"{path}: no such model file")
    if what == "a directory" and (path / "build.json").is_file():
        raise ModelFileError(f"{path}: a build directory, not a model file; run it with rerank run, or give one of "
                             "its model files")
    if what is not None:
        raise ModelFileError(f"{path}: {what}, not a model file")


def _read_header(zf: zipfile.ZipFile, by_name: dict) -> dict:
    info = by_name.get(_HEADER_KEY + ".npy")
    if info is None:
        raise ModelFileError("not a seqspectral model (no header)")
    blob = _read_member(zf, info, Member("u", (None,)), {}, _HEADER_KEY, MAX_HEADER_BYTES)
    try:
        text = blob.tobytes().decode("utf-8")
        if _nesting_depth(text) > MAX_HEADER_DEPTH:
            raise ModelFileError(f"header nested deeper than {MAX_HEADER_DEPTH} levels")
        header = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ModelFileError(f"damaged header ({type(e).__name__})") from None
    if not isinstance(header, dict) or not isinstance(header.get("kind"), str):
        raise ModelFileError("header has no model kind")
    if header.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"unsupported model format version {_short(header.get('format_version'))}")
    if header["kind"] not in KINDS:
        raise ModelFileError(f"unknown model kind {_short(header['kind'])}")
    return header


def _nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON ``text`` (brackets in strings not counted)."""
    import re

    depth = deepest = 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        c = token.group()
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def _read_members(zf: zipfile.ZipFile, by_name: dict, schema: Schema) -> dict[str, np.ndarray]:
    """The members the schema declares; a member it does not declare is refused (the schema
    is closed: a file holding anything the toolkit did not write is not that model)."""
    declared = {name + ".npy" for name in schema.members} | {_HEADER_KEY + ".npy"}
    unknown = sorted(set(by_name) - declared)
    if unknown:
        raise ModelFileError(f"member {_short(unknown[0])} is not part of a model of this kind"
                             + (f" (nor {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
    dims = dict(schema.dims)
    arrays = {}
    for name, member in schema.members.items():
        info = by_name.get(name + ".npy")
        if info is None:
            if member.optional:
                continue
            raise ModelFileError(f"no member {name!r}")
        arrays[name] = _read_member(zf, info, member, dims, name)
    return arrays


def _read_member(zf, info: zipfile.ZipInfo, member: Member, dims: dict, name: str,
                 max_bytes: int | None = None) -> np.ndarray:
    """One member, checked against ``member`` (``dims`` binds the named dimensions) before
    its data is decompressed."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ModelFileError(f"member {name!r} is compressed by method {info.compress_type}, not deflate")
    if max_bytes is not None and info.file_size > max_bytes:
        raise ModelFileError(f"member {name!r} holds {info.file_size} bytes (at most {max_bytes})")
    with zf.open(info) as f:
        version = np.lib.format.read_magic(f)
        reader = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
        if version not in reader:
            raise ModelFileError(f"member {name!r} has an unsupported .npy version {version}")
        shape, fortran, dtype = reader[version](f)
        if dtype.hasobject or dtype.kind not in member.kinds or dtype.fields is not None:
            raise ModelFileError(f"member {name!r} has dtype {dtype}, expected kind {member.kinds!r}")
        _unify(name, shape, member.shape, dims)
        n_bytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if f.tell() + n_bytes != info.file_size:
            raise ModelFileError(f"member {name!r} declares shape {shape} ({n_bytes} bytes) but holds "
                                 f"{info.file_size - f.tell()}")
        data = f.read(n_bytes)
    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy()
    if member.finite and dtype.kind == "f" and not np.isfinite(array).all():
        raise ModelFileError(f"member {name!r} holds NaN or infinite values")
    if member.values is not None and array.size:
        low, high = member.values
        high = dims.get(high) if isinstance(high, str) else high
        if array.min() < low or (high is not None and array.max() >= high):
            raise ModelFileError(f"member {name!r} holds values outside {low}..{high}")
    return array


def _unify(name: str, shape: tuple, declared: tuple, dims: dict) -> None:
    if len(shape) != len(declared):
        raise ModelFileError(f"member {name!r} has {len(shape)} dimensions, expected {len(declared)}")
    for axis, (n, want) in enumerate(zip(shape, declared)):
        if isinstance(want, str):
            want = dims.setdefault(want, n)
        if want is not None and n != want:
            raise ModelFileError(f"member {name!r} has shape {shape}: axis {axis} should be {want}")
