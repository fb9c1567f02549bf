"""The build manifest (``build.json``), read one way: parsed and checked against its schema,
field by field, so a damaged or crafted file is refused naming the file and the field
(:class:`ManifestError`, exit 2 on the command line) before anything is built or loaded.

Schema (every key below; no other)::

    stages             {name: {"key": str, "files": {file: sha256} | [file, ...],
                               "wall_s": number >= 0, "cpu_s": number >= 0,
                               "report": {...} (optional: what the stage reported)}}
    options            BuildOptions' fields, each checked as the command line checks it
    tag_fields         [column, ...]     the taggers' columns (upos, xpos, ...)
    parser_tag_columns [column, ...]     the tag columns the parser reads
    reading            {"format": a registered format or auto, "encoding": a text encoding,
                        "errors": raise | skip}

``options``, ``tag_fields``, ``parser_tag_columns`` and ``reading`` are written when the
build has finished; a build in progress has ``stages`` only.
"""

from __future__ import annotations

import json
from pathlib import Path

from seqspectral.io import atomic_open

MANIFEST = "build.json"
#: the columns a build's taggers may predict and its parser may read
TAG_COLUMNS = ("upos", "xpos", "feats", "lemma")
_TOP = ("stages", "options", "tag_fields", "parser_tag_columns", "reading")
_STAGE = ("key", "files", "wall_s", "cpu_s", "report")
_READING = ("format", "encoding", "errors")


class ManifestError(ValueError):
    """A build manifest that is not what the toolkit writes: names the file and the field."""

    user_facing = True

    def __init__(self, path, field: str, reason: str):
        self.path, self.field = path, field
        super().__init__(f"{path}: {field}: {reason}" if field else f"{path}: {reason}")


def read_manifest(directory) -> dict:
    """The checked manifest of a build directory ({"stages": {}} when there is none yet)."""
    path = Path(directory) / MANIFEST
    if not path.exists():
        return {"stages": {}}
    try:
        data = json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ManifestError(path, "", f"not a build manifest (not JSON: {str(e).split(':')[0]})") from None
    check_manifest(data, path)
    return data


def check_manifest(data, path) -> None:
    """Raise :class:`ManifestError` at the first field of ``data`` outside the schema."""
    if not isinstance(data, dict):
        raise ManifestError(path, "", f"not a build manifest (a JSON {type(data).__name__}, not an object)")
    _known(data, _TOP, path, "")
    stages = data.get("stages")
    if not isinstance(stages, dict):
        raise ManifestError(path, "stages", "missing or not an object")
    for name, entry in stages.items():
        _stage(entry, path, f"stages.{name}")
    if "options" in data:
        options_from_json(data["options"], path)
    for name in ("tag_fields", "parser_tag_columns"):
        if name in data:
            value = data[name]
            if not isinstance(value, list) or not all(c in TAG_COLUMNS for c in value):
                raise ManifestError(path, name, f"expected a list of columns among {', '.join(TAG_COLUMNS)}, "
                                                f"not {_shown(value)}")
    if "reading" in data:
        reading_from_json(data["reading"], path)


def _known(data: dict, names, path, where: str) -> None:
    for k in data:
        if k not in names:
            raise ManifestError(path, f"{where}.{k}" if where else str(k), f"unknown key (expected {', '.join(names)})")


def _shown(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _stage(entry, path, where: str) -> None:
    if not isinstance(entry, dict):
        raise ManifestError(path, where, "not an object")
    _known(entry, _STAGE, path, where)
    if not isinstance(entry.get("key"), str):
        raise ManifestError(path, f"{where}.key", f"expected a string, not {_shown(entry.get('key'))}")
    files = entry.get("files")
    if isinstance(files, list):  # a build of an earlier version: no digests recorded
        files_ok = all(isinstance(f, str) for f in files)
    else:
        files_ok = isinstance(files, dict) and all(isinstance(f, str) and isinstance(d, str) for f, d in files.items())
    if not files_ok or any("/" in f or "\\" in f or f.startswith(".") for f in files):
        raise ManifestError(path, f"{where}.files", "expected file names in the build directory (with their sha256)")
    if not isinstance(entry.get("report", {}), dict):
        raise ManifestError(path, f"{where}.report", f"expected an object, not {_shown(entry['report'])}")
    for name in ("wall_s", "cpu_s"):
        value = entry.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e9:
            raise ManifestError(path, f"{where}.{name}", f"expected seconds, not {_shown(value)}")


def stage_files(entry: dict) -> dict:
    """``{file: sha256 or ""}`` of a stage entry (an earlier version recorded names only)."""
    files = entry["files"]
    return dict.fromkeys(files, "") if isinstance(files, list) else dict(files)


def options_from_json(data, path):
    """The :class:`~seqspectral.workflows.options.BuildOptions` a manifest records, checked."""
    from dataclasses import fields

    from .options import BuildOptions, OptionError

    if not isinstance(data, dict):
        raise ManifestError(path, "options", "not an object")
    names = [f.name for f in fields(BuildOptions)]
    _known(data, names, path, "options")
    defaults = BuildOptions()
    values = {}
    for name in names:
        if name not in data:
            continue
        value, default = data[name], getattr(defaults, name)
        if isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ManifestError(path, f"options.{name}", f"expected a list of strings, not {_shown(value)}")
            value = tuple(value)
        elif type(value) is not type(default):
            raise ManifestError(path, f"options.{name}", f"expected {type(default).__name__}, not {_shown(value)}")
        values[name] = value
    options = BuildOptions(**values)
    try:
        options.check(clusters_exist=False)
    except OptionError as e:
        raise ManifestError(path, f"options.{e.option}", e.reason) from None
    return options


def reading_from_json(data, path):
    """The :class:`~seqspectral.corpus.Reading` a manifest records, checked (an earlier
    version recorded the encoding only, or nothing: utf-8)."""
    from seqspectral.corpus import Reading
    from seqspectral.corpus.errors import CorpusOptionError

    if not isinstance(data, dict):
        raise ManifestError(path, "reading", "not an object")
    _known(data, _READING, path, "reading")
    for name, value in data.items():
        if not isinstance(value, str):
            raise ManifestError(path, f"reading.{name}", f"expected a string, not {_shown(value)}")
        try:
            Reading(**{name: value})
        except (CorpusOptionError, ValueError, LookupError) as e:
            raise ManifestError(path, f"reading.{name}", str(e)) from None
    return Reading(**data)


def write_manifest(directory, manifest: dict) -> None:
    """Write ``build.json`` atomically."""
    with atomic_open(Path(directory) / MANIFEST, "w") as f:
        json.dump(manifest, f, indent=1)
