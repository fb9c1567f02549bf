"""Saving and loading models: one ``.npz`` of arrays plus a JSON header, never a pickle.

The header (kind, format version, vocabulary, hyper-parameters, anything JSON) is stored
as a uint8 array ``__header__`` inside the same ``.npz``, so a model is one file.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from .io import atomic_open

FORMAT_VERSION = 1
_HEADER_KEY = "__header__"


class ModelFileError(ValueError):
    """A model file that is missing, damaged, of another kind or not a seqspectral model."""

    user_facing = True


def save_model(path: str | Path, kind: str, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and ``header`` (plus ``kind`` and the format version) atomically."""
    if _HEADER_KEY in arrays:
        raise ValueError(f"array name {_HEADER_KEY!r} is reserved")
    full = {"kind": kind, "format_version": FORMAT_VERSION, **header}
    blob = np.frombuffer(json.dumps(full, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)
    for name, a in arrays.items():
        if np.asarray(a).dtype == object:
            raise TypeError(f"array {name!r} has dtype object, which cannot be saved without pickling")
    with atomic_open(path, "wb") as f:
        np.savez_compressed(f, **{_HEADER_KEY: blob}, **arrays)


def load_model(path: str | Path, kind: str | tuple[str, ...] | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """Read a model file; ``kind`` (one or several) is checked when given. Never unpickles."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    try:
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
