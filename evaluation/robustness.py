"""The robustness battery of issue 27: the command line against hostile or unlucky use.

Cases, each one run of a ``seqspectral`` command:

- mutated treebanks, n-best files and model files of every kind (lines dropped, duplicated,
  swapped; cells replaced by huge, negative, empty or non-numeric values; bytes inverted;
  files truncated; header values of the wrong type; arrays of the wrong shape or dtype,
  NaN or infinite; members dropped or added), run in this process through ``main``;
- bad options (encodings, shard sizes, sizes beyond the data), empty inputs and output
  faults (a full disk, a missing or read-only directory, a directory as the output);
- issue 42: every reader given a wrong encoding (UTF-16/32 on UTF-8), damaged model headers,
  extra members, every option that sizes work (``seqspectral.bounds``) beyond its bound and a
  100,000-word sentence, each run in a process of its own under a time and memory bound;
  inputs of the wrong kind (an n-best file where sentences are expected and the reverse, raw
  or untagged text to ``tag train``, a directory or a device where a model file is expected),
  standard input empty or binary (the message must name ``<stdin>``), ``rerank run`` and a
  resumed ``rerank build`` on hostile build directories (``build.json`` cut, sizes of 10**9,
  an unknown option, an unknown encoding; a stage file cut; a model file replaced);
- SIGINT at random moments of the first 0.3 s of a command (start-up);
- SIGINT and SIGTERM at random moments of the long commands on EWT (``parse run -k 50``,
  ``tag run -k 50``, ``tree train``, ``parse train``, ``tag train``, ``embed``, ``rerank
  train``), each in a process of its own.

A case fails when: an exception escapes ``main`` (a traceback), the process dies by a signal
(a crash), a command exits 1 (an internal error on bad input), a damaged model that must be
refused is accepted (exit 0), an error leaves an output or a temporary file, an
interrupt does not end in status 130 with one line and nothing written, a refusal's message
does not name what it must (the file, ``<stdin>``, the option) or is more than one line,
or a run passes its time or memory bound. A start-up interrupt that lands before the
command's entry module has installed its handler is counted apart, by where it landed
(:data:`STARTUP_PHASES`: Python's start-up, its site import, the script's import): it is
Python's, not the toolkit's. The counts go to
``results/robustness.md`` (and the headline to RESULTS.md by hand)::

    python -m evaluation robustness [--cases 2000] [--interrupts 50] [--seed 0] [--only COMMAND ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np

from .common import EWT, REPO, RESULTS, describe, markdown_table, require_data, write_results

SAMPLE = REPO / "corpora" / "ewt-sample.conllu"
#: progress on stderr off a terminal: a finished stage (seqspectral.progress) or a note
PROGRESS_LINE = re.compile(r"seqspectral: (note: |.+: (running: )?.*[0-9.]+ s, [0-9.]+ CPU s|.+: started$)")
FAILURES = ("traceback", "crash", "exit 1", "silent acceptance", "partial output", "interrupt not clean", "message",
            "over bound")
#: the bounds of a case run in a process of its own (seconds, resident bytes); a resumed
#: build may redo every stage after a damaged one: BUILD_TIME_BOUND
TIME_BOUND, BUILD_TIME_BOUND, MEMORY_BOUND = 120.0, 600.0, 2 << 30


# -- running one case ----------------------------------------------------------------------


def run_inside(argv, output: Path | None, must_refuse: bool = False, expect: str | None = None,
               stdin: bytes | None = None) -> str:
    """One command through ``main`` in this process (``stdin``: the bytes of its standard
    input): its outcome (``ok`` or a failure). A refusal must be one line naming ``expect``."""
    from seqspectral.cli.main import main as cli

    if output is not None and output.exists():
        output.unlink()
    err = io.StringIO()
    saved_stdin = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli([str(a) for a in argv])
    except SystemExit as e:  # argparse
        code = e.code
    except BaseException:  # noqa: BLE001 - the battery counts what escapes
        return "traceback"
    finally:
        sys.stdin = saved_stdin
    return judge(code, err.getvalue(), output, must_refuse, expect)


def judge(code, text: str, output: Path | None, must_refuse: bool, expect: str | None) -> str:
    """The outcome of a run that ended with ``code`` and wrote ``text`` on stderr."""
    if "Traceback" in text:
        return "traceback"
    if code == 1:
        return "exit 1"
    if isinstance(code, int) and code < 0:
        return "crash"
    if code == 0 and must_refuse:
        return "silent acceptance"
    if code != 0 and output is not None and (output.exists() or _temp_files(output)):
        return "partial output"
    errors = [line for line in text.splitlines() if "error:" in line]
    if code == 2 and expect is not None and (len(errors) != 1 or expect not in errors[0] or "/stdin" in errors[0]):
        return "message"
    return "ok"


def run_outside(argv, output: Path | None, must_refuse: bool = True, expect: str | None = None) -> str:
    """One command in a process of its own, under :data:`TIME_BOUND` and :data:`MEMORY_BOUND`
    (its peak resident memory, from ``wait4``)."""
    import resource

    if output is not None and output.exists():
        output.unlink()
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "seqspectral.cli.main", *map(str, argv)], stdout=subprocess.DEVNULL,
                                stderr=err, stdin=subprocess.DEVNULL,
                                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30)))
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > (BUILD_TIME_BOUND if argv[:2] == ["rerank", "build"] else TIME_BOUND):
                proc.kill()
                os.wait4(proc.pid, 0)
                return "over bound"
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read()
    if usage.ru_maxrss * 1024 > MEMORY_BOUND:
        return "over bound"
    return judge(proc.returncode, text, output, must_refuse, expect)


def load_only(path: Path, must_refuse: bool) -> str:
    """A model file read by the library: refused with ModelFileError naming it, or loaded."""
    from seqspectral import serialize

    try:
        serialize.load(path)
    except serialize.ModelFileError as e:
        return "ok" if str(path) in str(e) else "traceback"
    except BaseException:  # noqa: BLE001
        return "traceback"
    return "silent acceptance" if must_refuse else "ok"


def _temp_files(output: Path) -> list:
    return list(output.parent.glob(f".{output.name}.*.tmp"))


# -- mutations -----------------------------------------------------------------------------

CELLS = ["_", "", "-1", "0", "99", str(2 ** 63), str(2 ** 64 + 1), "1.5", "1-2", "nan", "#", "\u00e9\u00e9", "9" * 40]


def mutate_text(text: str, rng: random.Random) -> bytes:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        what = rng.choice(["drop", "duplicate", "swap", "cell", "blank", "truncate", "chars"])
        if what == "drop":
            del lines[i]
        elif what == "duplicate":
            lines.insert(i, lines[i])
        elif what == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif what == "cell":
            cells = lines[i].split("\t")
            cells[rng.randrange(len(cells))] = rng.choice(CELLS)
            lines[i] = "\t".join(cells)
        elif what == "blank":
            lines.insert(i, rng.choice(["", " ", "\t", "# x"]))
        elif what == "truncate":
            lines = lines[:i] or [""]
        else:
            lines[i] = lines[i][: rng.randint(0, len(lines[i]))] + rng.choice(["\x00", "\ufeff", "\t\t", "\u2028"])
        if not lines:
            lines = [""]
    data = "\n".join(lines).encode("utf-8")
    if rng.random() < 0.3:  # invalid UTF-8
        k = rng.randrange(len(data) + 1)
        data = data[:k] + bytes([rng.choice([0x80, 0xC3, 0xFF, 0xFE])]) + data[k:]
    return data


def npy_bytes(array) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def json_leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from json_leaves(v, (*path, k))
    elif isinstance(value, list) and 0 < len(value) < 50:
        for i, v in enumerate(value):
            yield from json_leaves(v, (*path, i))
    if path:
        yield path


def _set(value, path, new):
    if len(path) == 1:
        value[path[0]] = new
    else:
        _set(value[path[0]], path[1:], new)


JSON_VALUES = [None, True, -1, 0, 2 ** 40, 10 ** 30, -(2 ** 63), 1.5, float("nan"), "", "evil", "deprel", [],
               [1, 2], {"kind": "hmm"}, {"symbols": 7}]


def damage_model(path: Path, rng: random.Random) -> tuple[bytes, bool]:
    """A damaged copy of a model file and whether it must be refused (structural damage;
    a changed header value may be one the model tolerates, e.g. a history entry)."""
    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    what = rng.choice(["header", "header", "shape", "dtype", "nan", "drop", "extra", "bytes", "truncate", "deep"])
    must_refuse = what not in ("header", "bytes")  # an extra member too: the schema is closed
    arrays = sorted(n for n in members if n != "__header__.npy")
    if what == "header":
        header = json.loads(np.lib.format.read_array(io.BytesIO(members["__header__.npy"])).tobytes())
        _set(header, rng.choice(list(json_leaves(header))), rng.choice(JSON_VALUES))
        members["__header__.npy"] = npy_bytes(np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    elif what == "deep":
        members["__header__.npy"] = npy_bytes(np.frombuffer(b"[" * rng.randint(100, 300_000), dtype=np.uint8))
    elif what in ("shape", "dtype", "nan"):
        name = rng.choice(arrays)
        old = np.lib.format.read_array(io.BytesIO(members[name]))
        if what == "nan" and old.dtype.kind != "f":
            what, must_refuse = "dtype", True
        if what == "shape":
            new = np.zeros(tuple(s + rng.choice([1, 2]) for s in old.shape) or (3,), dtype=old.dtype)
        elif what == "dtype":
            new = old.astype({"f": np.int64, "i": np.float32, "u": np.float32, "b": np.float64}[old.dtype.kind])
        else:
            new = old.copy()
            if new.size:
                new.flat[rng.randrange(new.size)] = rng.choice([np.nan, np.inf, -np.inf])
            else:
                must_refuse = False
        members[name] = npy_bytes(new)
    elif what == "drop":
        del members[rng.choice(arrays)]
    elif what == "extra":
        members["extra.npy"] = npy_bytes(np.zeros(rng.choice([0, 1 << 20, 64 << 20]), dtype=np.uint8))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    data = out.getvalue()
    if what == "bytes":
        data = bytearray(data)
        for _ in range(rng.randint(1, 16)):
            data[rng.randrange(len(data))] ^= rng.randint(1, 255)
        data = bytes(data)
    elif what == "truncate":
        data = data[: rng.randrange(len(data))]
    return data, must_refuse


# -- the battery ----------------------------------------------------------------------------


def train_models(d: Path, small: Path) -> None:
    from seqspectral.cli.main import main as cli

    runs = {
        "lm_spectral.npz": ["lm", "train", SAMPLE, "--method", "spectral", "--states", "4", "-o"],
        "lm_hmm.npz": ["lm", "train", SAMPLE, "--method", "em-tensor", "--states", "3", "-o"],
        "lm_ngram.npz": ["lm", "train", SAMPLE, "--method", "ngram", "-o"],
        "tree.npz": ["tree", "train", SAMPLE, "-o"],
        "tree_em.npz": ["tree", "train", small, "--method", "em", "--dim", "3", "--n-iter", "3", "-o"],
        "tagger.npz": ["tag", "train", SAMPLE, "--epochs", "2", "--hash-bits", "14", "-o"],
        "parser.npz": ["parse", "train", SAMPLE, "--epochs", "2", "--hash-bits", "16", "-o"],
        "emb.npz": ["embed", SAMPLE, "--dim", "4", "-o", d / "emb.txt", "--model"],
    }
    for name, argv in runs.items():
        assert cli([str(a) for a in [*argv, d / name, "--quiet"]]) == 0, name
    assert cli(["tag", "run", str(d / "tagger.npz"), str(small), "-k", "3", "-o", str(d / "tags.nbest"), "--quiet"]) == 0
    assert cli(["parse", "run", str(d / "parser.npz"), str(small), "-k", "3", "-o", str(d / "parses.nbest"),
                 "--quiet"]) == 0
    assert cli(["rerank", "train", str(d / "tags.nbest"), "--gold", str(small), "--candidates", "tags", "--epochs",
                 "1", "--lm", str(d / "lm_ngram.npz"), "-o", str(d / "reranker.npz"), "--quiet"]) == 0


def input_cases(d: Path, small: Path, out: Path):
    """(category, argv builder taking the mutated file, output) for mutated treebanks and n-best files."""
    m = {name: d / name for name in ("tree.npz", "tagger.npz", "parser.npz", "lm_ngram.npz", "reranker.npz")}
    treebank = [
        ["tree", "train", "F", "-o", "OUT", "--quiet"], ["tree", "score", m["tree.npz"], "F", "-o", "OUT"],
        ["lm", "train", "F", "--method", "ngram", "-o", "OUT", "--quiet"], ["lm", "score", m["lm_ngram.npz"], "F", "-o", "OUT"],
        ["tag", "run", m["tagger.npz"], "F", "-o", "OUT", "--quiet"],
        ["parse", "run", m["parser.npz"], "F", "-k", "2", "-o", "OUT", "--quiet"],
        ["tag", "train", "F", "--epochs", "1", "--hash-bits", "8", "-o", "OUT", "--quiet"],
        ["parse", "train", "F", "--epochs", "1", "--hash-bits", "8", "-o", "OUT", "--quiet"],
        ["embed", "F", "--dim", "2", "-o", "OUT", "--quiet"], ["evaluate", "parse", "F", small],
        ["corpus", "stats", "F"],
    ]
    nbest = [
        ["rerank", "apply", m["reranker.npz"], "F", "--lm", m["lm_ngram.npz"], "-o", "OUT", "--quiet"],
        ["rerank", "train", "F", "--gold", small, "--candidates", "tags", "--epochs", "1", "-o", "OUT", "--quiet"],
    ]
    return [("treebank", a) for a in treebank], [("n-best", a) for a in nbest]


MODEL_READERS = {
    "lm_spectral.npz": ["lm", "score", "M", SAMPLE, "-o", "OUT"], "lm_hmm.npz": ["lm", "score", "M", SAMPLE, "-o", "OUT"],
    "lm_ngram.npz": ["lm", "eval", "M", SAMPLE], "tree.npz": ["tree", "score", "M", SAMPLE, "-o", "OUT"],
    "tree_em.npz": ["tree", "score", "M", SAMPLE, "-o", "OUT"], "tagger.npz": ["tag", "run", "M", "SMALL", "-o", "OUT"],
    "parser.npz": ["parse", "run", "M", "SMALL", "-k", "2", "-o", "OUT"],
    "reranker.npz": ["rerank", "apply", "M", "TAGS", "--lm", "LM", "-o", "OUT"],
    "emb.npz": None,  # no command reads it: the library's serialize.load
}


def fixed_cases(d: Path, small: Path, out: Path, ro: Path):
    """Bad options, empty inputs, wrong kinds, output faults: (category, argv, output, must_refuse)."""
    empty, blank = d / "empty.conllu", d / "blank.txt"
    empty.write_text("")
    blank.write_text("\n \n")
    cases = []
    for bad in (["--encoding", "rot13"], ["--encoding", "base64"], ["--encoding", "nonesuch"], ["--shard-mb", "1e-9"],
                ["--shard-mb", "inf"], ["--shard-mb", "nan"], ["--workers", "100000"], ["--workers", "0"],
                ["--basis-length", "1000000"], ["--states", "-3"], ["--order", "0"]):
        cases.append(("option", ["lm", "train", SAMPLE, "--method", "spectral", "-o", out, *bad], out, True))
    for argv in (["tree", "train", SAMPLE, "--method", "em", "--dim", "1000000", "-o", out],
                 ["parse", "run", d / "parser.npz", SAMPLE, "-k", "1000000000", "-o", out],
                 ["tag", "run", d / "tagger.npz", SAMPLE, "-k", "1000000000", "-o", out],
                 ["embed", SAMPLE, "--window", "1000000", "-o", out], ["embed", SAMPLE, "--workers", "100000", "-o", out],
                 ["tag", "train", SAMPLE, "--hash-bits", "40", "-o", out],
                 ["parse", "train", SAMPLE, "--hash-bits", "64", "-o", out]):
        cases.append(("option", argv, out, True))
    for f in (empty, blank):
        for argv in (["lm", "train", f, "--method", "ngram", "-o", out], ["tree", "train", f, "-o", out],
                     ["embed", f, "-o", out], ["lm", "score", d / "lm_ngram.npz", f, "-o", out],
                     ["tree", "score", d / "tree.npz", f, "-o", out], ["tag", "run", d / "tagger.npz", f, "-o", out],
                     ["parse", "run", d / "parser.npz", f, "-o", out], ["rerank", "apply", d / "reranker.npz", f,
                                                                        "--lm", d / "lm_ngram.npz", "-o", out]):
            cases.append(("empty input", argv, out, True))
    for wrong in ("tagger.npz", "parser.npz", "emb.npz", "reranker.npz", "lm_ngram.npz"):
        cases.append(("wrong kind", ["rerank", "train", d / "parses.nbest", "--gold", small, "--tree-model", d / wrong,
                                     "-o", out], out, True))
    for wrong in ("tagger.npz", "parser.npz", "emb.npz", "reranker.npz", "tree.npz"):
        cases.append(("wrong kind", ["rerank", "train", d / "tags.nbest", "--gold", small, "--candidates", "tags",
                                     "--lm", d / wrong, "-o", out], out, True))
        cases.append(("wrong kind", ["lm", "score", d / wrong, SAMPLE], None, True))
    read_only = [] if os.geteuid() == 0 else [ro / "out"]  # root writes into a read-only directory
    for target in ("/dev/full", "/no/such/dir/out", *read_only, d):
        for argv in (["tag", "run", d / "tagger.npz", small, "-o", target], ["lm", "train", SAMPLE, "--method", "ngram",
                                                                              "-o", target],
                     ["embed", SAMPLE, "-o", out, "--model", target], ["embed", SAMPLE, "-o", target, "--model", out],
                     ["tree", "score", d / "tree.npz", small, "-o", target],
                     ["parse", "run", d / "parser.npz", small, "-o", target]):
            cases.append(("output fault", argv, out if "--model" in argv else None, True))
    return cases


def build_directory(d: Path, small: Path) -> Path:
    """A finished ``rerank build`` of the sample (the issue's ``B``)."""
    from seqspectral.cli.main import main as cli

    built = d / "B"
    assert cli(["rerank", "build", str(SAMPLE), "-o", str(built), "--epochs", "1", "-k", "5", "--hash-bits", "16",
                "--quiet"]) == 0
    return built


def hostile_builds(d: Path, built: Path):
    """(name, directory) of damaged copies of the build directory ``built``."""
    import shutil

    def copy(name: str) -> Path:
        target = d / f"B-{name}"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(built, target)
        return target

    def manifest(name: str, change) -> Path:
        target = copy(name)
        data = json.loads((target / "build.json").read_text())
        change(data)
        (target / "build.json").write_text(json.dumps(data))
        return target

    out = []
    target = copy("manifest-cut")
    text = (target / "build.json").read_text()
    (target / "build.json").write_text(text[: len(text) // 2])
    out.append(("build.json cut in half", target))
    for key, value in (("k", 10 ** 9), ("k", "x"), ("folds", 10 ** 9), ("tag_folds", 10 ** 9), ("k", -1)):
        out.append((f"options.{key} = {value!r}", manifest(f"{key}-{value}", lambda m: m["options"].update({key: value}))))
    out.append(("an unknown option", manifest("unknown", lambda m: m["options"].update({"evil": 1}))))
    out.append(("reading.encoding rot13", manifest("rot13", lambda m: m["reading"].update({"encoding": "rot13"}))))
    target = copy("stage-cut")
    data = (target / "nbest-train-fold1.npz").read_bytes()
    (target / "nbest-train-fold1.npz").write_bytes(data[: len(data) // 2])
    out.append(("a stage file cut in half", target))
    target = copy("parser-device")
    (target / "parser.npz").unlink()
    (target / "parser.npz").symlink_to("/dev/zero")
    out.append(("parser.npz a link to a device", target))
    target = copy("reranker-cut")
    data = (target / "reranker.npz").read_bytes()
    (target / "reranker.npz").write_bytes(data[: len(data) // 3])
    out.append(("reranker.npz cut", target))
    return out


def long_sentence(path: Path, n_words: int = 100_000) -> Path:
    path.write_text("\n".join(f"{i}\tw{i % 50}\tw\tNOUN\tNN\t_\t{0 if i == 1 else 1}\tdep\t_\t_"
                              for i in range(1, n_words + 1)) + "\n\n")
    return path


def issue42_cases(d: Path, small: Path, out: Path, built: Path):
    """The classes of issue 42 and issue 39's wrong inputs: (category, argv, output, must_refuse,
    expected text of the message, stdin bytes or None, run in a process of its own)."""
    m = {name: d / name for name in ("tree.npz", "tagger.npz", "parser.npz", "lm_ngram.npz", "reranker.npz")}
    dev = REPO / "corpora" / "ewt-sample-dev.conllu"
    text = REPO / "corpora" / "ewt-sample-dev.txt"
    nbest, tags = d / "parses.nbest", d / "tags.nbest"
    untagged = d / "untagged.conllu"
    untagged.write_text("\n".join("\t".join(c[:3] + ["_", "_"] + c[5:]) if len(c := line.split("\t")) == 10 else line
                                  for line in small.read_text().split("\n")))
    longest = long_sentence(d / "long.conllu")
    empty = d / "empty.conllu"
    empty.write_text("")
    cases = []
    readers = [["parse", "run", m["parser.npz"], dev, "-o", out], ["tag", "run", m["tagger.npz"], dev, "-o", out],
               ["rerank", "run", built, dev, "-o", out], ["show", dev], ["evaluate", "tag", dev, dev],
               ["evaluate", "parse", dev, dev], ["tree", "train", dev, "-o", out], ["tree", "score", m["tree.npz"], dev],
               ["lm", "train", dev, "--method", "ngram", "-o", out], ["corpus", "stats", dev],
               ["tag", "train", dev, "--epochs", "1", "-o", out], ["parse", "train", dev, "--epochs", "1", "-o", out],
               ["rerank", "build", dev, "-o", d / "B-new", "--epochs", "1", "-k", "3", "--hash-bits", "12"],
               ["rerank", "apply", m["reranker.npz"], tags, "--lm", m["lm_ngram.npz"], "-o", out]]
    for encoding in ("utf-16", "utf-32", "utf-16-be", "cp1252", "utf-8-sig"):
        must = encoding not in ("cp1252", "utf-8-sig")  # the sample is UTF-8: cp1252 decodes most of it
        for argv in readers:
            target = tags if argv[0] == "rerank" and argv[1] == "apply" else dev
            cases.append(("wrong encoding", [*argv, "--encoding", encoding], out if out in argv else None, must,
                          str(target) if must else None, None, False))
    sizes = [(["rerank", "run", built, longest, "-o", out], "long.conllu"), (["show", longest], "long.conllu"),
             (["show", longest, "--html", out], "long.conllu"), (["parse", "run", m["parser.npz"], longest, "-o", out],
                                                                 "long.conllu"),
             (["tag", "run", m["tagger.npz"], longest, "-o", out], None),  # linear in the length: tagged
             (["tree", "train", SAMPLE, "--field", "form", "--dim", "1000", "-o", out], "--dim"),
             (["tree", "train", SAMPLE, "--field", "form", "--method", "em", "--dim", "1000", "-o", out], "--dim"),
             (["tree", "train", SAMPLE, "--field", "form", "--representation", "identity", "-o", out],
              "identity representation"),
             (["parse", "run", m["parser.npz"], dev, "--folds", "100", "-o", out], "--folds"),
             (["tag", "run", m["tagger.npz"], dev, "--folds", "1000000000", "-o", out], "--folds"),
             (["parse", "run", m["parser.npz"], dev, "-k", "1000000000", "-o", out], "-k"),
             (["rerank", "run", built, dev, "-k", "1000000000", "-o", out], "-k"),
             (["rerank", "build", SAMPLE, "-o", d / "B-new", "--folds", "1000000000"], "--folds"),
             (["rerank", "build", SAMPLE, "-o", d / "B-new", "--tag-folds", "1000000000", "--tags", "predicted"],
              "--tag-folds"),
             (["rerank", "build", SAMPLE, "-o", d / "B-new", "-k", "1000000000"], "-k"),
             (["rerank", "build", empty, "-o", d / "B-new"], "empty.conllu"), (["rerank", "build", d, "-o", d / "B-new"], str(d)),
             (["embed", SAMPLE, "--dim", "100000", "-o", out], "--dim")]
    for argv, named in sizes:
        cases.append(("size", argv, out if out in argv else None, named is not None, named, None, True))
    wrong = [(["parse", "run", m["parser.npz"], nbest, "-o", out], nbest), (["tag", "run", m["tagger.npz"], nbest, "-o", out], nbest),
             (["rerank", "run", built, nbest, "-o", out], nbest), (["evaluate", "parse", nbest, dev], nbest),
             (["evaluate", "tag", tags, dev], tags), (["parse", "train", nbest, "-o", out], nbest),
             (["tag", "train", tags, "-o", out], tags),
             (["rerank", "apply", m["reranker.npz"], dev, "-o", out], dev),
             (["rerank", "train", dev, "--gold", dev, "-o", out], dev),
             (["tag", "train", text, "-o", out], text), (["tag", "train", untagged, "-o", out], untagged),
             (["parse", "train", text, "-o", out], text), (["tree", "train", text, "--format", "conllu", "-o", out], text),
             (["parse", "run", built, dev, "-o", out], built), (["tag", "run", d, dev, "-o", out], d),
             (["tree", "score", built / "tree.npz", dev, "-o", out], None),  # a build's own tree model: accepted
             (["parse", "run", built / "parser.npz", dev, "-o", out], None),
             (["rerank", "apply", d / "devlink.npz", tags, "-o", out], d / "devlink.npz"),
             (["parse", "run", d / "devlink.npz", dev, "-o", out], d / "devlink.npz")]
    (d / "devlink.npz").unlink(missing_ok=True)
    (d / "devlink.npz").symlink_to("/dev/zero")
    for argv, named in wrong:
        cases.append(("wrong kind", [*argv, "--quiet"] if argv[0] in ("parse", "tag", "rerank", "tree") else argv,
                      out if out in argv else None, named is not None, None if named is None else str(named), None, False))
    cases.append(("empty input", ["corpus", "stats", empty], None, False, None, None, False))  # an empty corpus
    for data in (b"", b"\x7fELF\x02\x01\x01\x00\xd0\xff\xfe" * 50, b"\n\n\n"):
        for argv in (["show", "-"], ["tag", "run", m["tagger.npz"], "-", "-o", out], ["parse", "run", m["parser.npz"], "-",
                                                                                      "-o", out],
                     ["rerank", "apply", m["reranker.npz"], "-", "-o", out], ["evaluate", "parse", "-", dev],
                     ["rerank", "run", built, "-", "-o", out]):
            cases.append(("standard input", argv, out if out in argv else None, True, "<stdin>", data, False))
    for what, target in hostile_builds(d, built):
        read_by_run = what != "a stage file cut in half"  # rerank run reads the models, not the training lists
        cases.append(("hostile build", ["rerank", "run", target, dev, "-o", out], out, read_by_run, str(target), None,
                      True))
        cases.append(("hostile build", ["rerank", "build", SAMPLE, "-o", target, "--epochs", "1", "-k", "5",
                                        "--hash-bits", "16", "--quiet"], None, False, str(target), None, True))
    return cases


def interrupt_case(argv, output: Path, delay: float, signum: int) -> tuple[str, str]:
    """One long command in a process of its own, interrupted after ``delay`` s: its outcome
    and what it did (:func:`what_it_did`: the exit status, the lines it said, what it left)."""
    if output.exists():
        output.unlink()
    proc = subprocess.Popen([sys.executable, "-m", "seqspectral.cli.main", *map(str, argv)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,  # SIGINT as from a terminal, even when this runs in the background
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(delay)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate()
    did = what_it_did(f"{signal.Signals(signum).name} at {delay:.2f} s", proc.returncode, stdout, stderr, output)
    if (phase := startup_phase(proc.returncode, stderr, signum)) is not None:
        return f"{BEFORE_ENTRY}: {phase}", did  # Python's start-up still ran (a loaded machine's)
    if proc.returncode < 0:
        return "crash", did
    if "Traceback" in stderr or "Exception ignored" in stderr:
        return "traceback", did
    if proc.returncode == 0:
        return "finished first", did  # the signal came after the work was done
    # progress said before the signal (a finished stage's line, a note) is not the interrupt's message
    lines = [line for line in stderr.strip().splitlines() if not PROGRESS_LINE.match(line)]
    if proc.returncode != 130 or len(lines) != 1 or "interrupted" not in lines[0] or stdout:
        return "interrupt not clean", did
    if output.exists() or _temp_files(output):
        return "partial output", did
    return "ok", did


def what_it_did(signal_sent: str, status: int, stdout: str, stderr: str, output: Path) -> str:
    """One line for the failures' examples: the signal, the exit status, the lines said on
    stderr that are not progress (the last three), stdout's size and the files left."""
    said = [line for line in stderr.strip().splitlines() if not PROGRESS_LINE.match(line)]
    left = (["the output"] if output.exists() else []) + [p.name for p in _temp_files(output)]
    return (f"{signal_sent}: exit {status}, stderr {said[-3:]!r}, stdout {len(stdout)} characters, "
            f"left {left or 'nothing'}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000, help="mutated-file cases (default 2000)")
    parser.add_argument("--interrupts", type=int, default=50, help="interrupts per long command (default 50)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", action="append", default=None, metavar="COMMAND",
                        help="only the interrupt categories of these commands ('start-up', 'rerank train', ...; "
                             "repeatable), to re-run what a full run found; the results go to "
                             "results/robustness-only.md")
    args = parser.parse_args(argv)
    require_data(EWT / "en_ewt-ud-train.conllu", EWT / "en_ewt-ud-dev.conllu", SAMPLE)
    rng = random.Random(args.seed)
    counts: dict[str, Counter] = {}
    examples: dict[str, list] = {}

    def record(category: str, outcome, what) -> None:
        outcome, did = outcome if isinstance(outcome, tuple) else (outcome, "")  # (outcome, what the run did)
        counts.setdefault(category, Counter())[outcome] += 1
        if outcome in FAILURES and len(examples.setdefault(outcome, [])) < 5:
            examples[outcome].append(f"{category}: {' '.join(map(str, what))}" + (f" — {did}" if did else ""))

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        small = d / "small.conllu"
        small.write_text("\n\n".join(SAMPLE.read_text().split("\n\n")[:40]) + "\n\n")
        train_models(d, small)
        if args.only:
            if "start-up" in args.only:
                startup_interrupts(d, rng, args.interrupts, record)
            interrupt_commands(d, rng, args.interrupts, record, only=args.only)
            write_results(RESULTS / "robustness-only.md", report(counts, examples, argv))
            print(report(counts, examples, argv))
            return 0
        out, ro = d / "out", d / "readonly"
        ro.mkdir()
        ro.chmod(0o500)
        for category, a, output, must in fixed_cases(d, small, out, ro):
            record(category, run_inside(a, output, must), a)
        treebank, nbest = input_cases(d, small, out)
        texts = {"treebank": small.read_text(), "n-best": (d / "tags.nbest").read_text()[:20000]}
        bad = d / "bad"
        for i in range(args.cases):
            kind = rng.choice(["treebank", "treebank", "n-best", "model", "model"])
            if kind == "model":
                name = rng.choice(sorted(MODEL_READERS))
                data, must = damage_model(d / name, rng)
                path = d / f"bad_{name}"
                path.write_bytes(data)
                if MODEL_READERS[name] is None:
                    record(f"model {name[:-4]}", load_only(path, must), ["serialize.load", path])
                    continue
                fill = {"M": path, "OUT": out, "SMALL": small, "TAGS": d / "tags.nbest", "LM": d / "lm_ngram.npz"}
                a = [fill.get(x, x) if isinstance(x, str) else x for x in MODEL_READERS[name]]
                record(f"model {name[:-4]}", run_inside(a, out if "OUT" in MODEL_READERS[name] else None, must), a)
            else:
                bad.write_bytes(mutate_text(texts[kind], rng))
                category, template = rng.choice(treebank if kind == "treebank" else nbest)
                a = [bad if x == "F" else out if x == "OUT" else x for x in template]
                record(category, run_inside(a, out if "OUT" in template else None), a)
            if (i + 1) % 200 == 0:
                print(f"{i + 1}/{args.cases} cases, {time.perf_counter() - start:.0f} s", file=sys.stderr)
        ro.chmod(0o700)
        built = build_directory(d, small)
        for category, a, output, must, expect, stdin, alone in issue42_cases(d, small, out, built):
            outcome = run_outside(a, output, must, expect) if alone else run_inside(a, output, must, expect, stdin)
            record(category, outcome, a)
        print(f"issue 42 cases done, {time.perf_counter() - start:.0f} s", file=sys.stderr)
        startup_interrupts(d, rng, args.interrupts, record)
        interrupt_commands(d, rng, args.interrupts, record)
    write_results(RESULTS / "robustness.md", report(counts, examples, argv))
    print(report(counts, examples, argv))
    return 0


#: where a start-up interrupt landed before the toolkit's handler (cli/main.py's first
#: statements), from what the process said: Python's, not the toolkit's (docs/robustness.md)
BEFORE_ENTRY = "before the entry point"
STARTUP_PHASES = {
    "killed": "Python's start-up before its own handler (SIGTERM: before the toolkit's): killed by the signal, nothing "
              "said",
    "init": "Python's initialisation after its handler (the standard streams, encodings): exit 1, 'Fatal Python "
            "error: init_...'",
    "site": "Python's site import (the environment's .pth files): exit 1, 'init_import_site'",
    "import": "the script's import of the toolkit (runpy, importlib, the parent packages): a "
              "KeyboardInterrupt traceback, killed by SIGINT",
    "lost": "inside importlib's module lock, where Python prints it and goes on: the command finished",
    "no frame": "Python's own C code before any Python code runs (most likely compiling the script): exit 1, a bare "
                "'KeyboardInterrupt', with no traceback because no frame (the toolkit's or any) was running",
}


def startup_phase(returncode: int, stderr: str, signum: int = signal.SIGINT) -> str | None:
    """The :data:`STARTUP_PHASES` key of a start-up interrupt Python took, else None: the
    toolkit's (its handler's "interrupted" line, or a traceback in its own code)."""
    if "init_import_site" in stderr:
        return "site"
    if "Fatal Python error: init_" in stderr:
        return "init"
    if returncode == -signum and not stderr.strip():  # SIGTERM: Python never takes it, so any time before the handler
        return "killed"
    if "_get_module_lock" in stderr and returncode == 0:
        return "lost"
    if returncode == 1 and stderr.strip() == "KeyboardInterrupt":  # raised from C with no Python frame running
        return "no frame"
    frames = re.findall(r'File "([^"]+)"', stderr)
    if returncode == -signal.SIGINT and frames and "KeyboardInterrupt" in stderr and \
            not any(_toolkit_file(frame) for frame in frames):  # no toolkit code on the stack
        return "import"
    return None


def _toolkit_file(name: str) -> bool:
    path = Path(name)
    return path.is_absolute() and any(path.resolve().is_relative_to(REPO / part) for part in ("seqspectral", "cli"))


def startup_interrupts(d: Path, rng: random.Random, n: int, record) -> None:
    """``n`` SIGINT at random moments of the first 0.3 s of ``tree train``, run by the
    installed command. One that lands before the command's entry module has installed its
    handler is Python's (:data:`STARTUP_PHASES`): counted as "before the entry point: PHASE"."""
    out = d / "startup.out"
    script = Path(sys.executable).parent / "seqspectral"
    argv = ["tree", "train", SAMPLE, "-o", out, "--quiet"]
    for _ in range(n):
        if out.exists():
            out.unlink()
        proc = subprocess.Popen([str(script), *map(str, argv)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        delay = rng.uniform(0.0, 0.3)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate()
        lines = stderr.strip().splitlines()
        phase = startup_phase(proc.returncode, stderr)
        if phase is not None:
            outcome = f"{BEFORE_ENTRY}: {phase}"
        elif proc.returncode == 0 and not lines:
            outcome = "finished first"
        elif proc.returncode == 130 and len(lines) == 1 and "interrupted" in lines[0] and not stdout:
            outcome = "partial output" if out.exists() or _temp_files(out) else "ok"
        else:
            outcome = "crash" if proc.returncode < 0 else "traceback" if "Traceback" in stderr else "interrupt not clean"
        record("interrupt: start-up (tree train)", (outcome, what_it_did(f"SIGINT at {delay:.3f} s", proc.returncode, stdout, stderr, out)),
               argv)
    print("interrupts: start-up done", file=sys.stderr)


def interrupt_commands(d: Path, rng: random.Random, n: int, record, only=None) -> None:
    """``n`` random SIGINT/SIGTERM per long command on EWT (delays spread over its run time);
    ``only``: the names of the commands to run (default all)."""
    train, dev = EWT / "en_ewt-ud-train.conllu", EWT / "en_ewt-ud-dev.conllu"
    out = d / "interrupted.out"
    commands = {
        "parse run -k 50": ["parse", "run", d / "parser.npz", dev, "-k", "50", "-o", out],
        "tag run -k 50": ["tag", "run", d / "tagger.npz", dev, "-k", "50", "-o", out],
        "tree train": ["tree", "train", train, "-o", out],
        "parse train": ["parse", "train", train, "--epochs", "1", "-o", out],
        "tag train": ["tag", "train", train, "--epochs", "1", "-o", out],
        "embed": ["embed", train, "-o", out],
        "rerank train": ["rerank", "train", d / "parses.nbest", "--gold", d / "small.conllu", "--tree-model",
                         d / "tree.npz", "-o", out],
    }
    for name, argv in commands.items():
        if only is not None and name not in only:
            continue
        for i in range(n):
            signum = signal.SIGINT if i % 2 == 0 else signal.SIGTERM
            record(f"interrupt: {name}", interrupt_case(argv, out, rng.uniform(0.2, 4.0), signum), argv)
        print(f"interrupts: {name} done", file=sys.stderr)


def report(counts: dict, examples: dict, argv) -> str:
    total = Counter()
    for c in counts.values():
        total.update(c)

    def before_entry(c: Counter) -> int:
        return sum(n for outcome, n in c.items() if outcome.startswith(BEFORE_ENTRY))

    table = "\n".join(markdown_table(["category", "cases", *FAILURES, "finished before the signal", BEFORE_ENTRY],
                                     [[cat, sum(c.values()), *(c[o] for o in FAILURES), c["finished first"],
                                       before_entry(c)] for cat, c in sorted(counts.items())]))
    phases = "; ".join(f"{total[f'{BEFORE_ENTRY}: {key}']} {what}" for key, what in STARTUP_PHASES.items())
    failures = "\n".join(f"- {o}: " + "; ".join(e) for o, e in examples.items()) or "none"
    return f"""# Robustness battery (issues 27 and 42)

{describe("evaluation/robustness.py", sys.argv[1:] if argv is None else argv)}.

{sum(total.values())} cases. Failures: {', '.join(f'{o} {total[o]}' for o in FAILURES)}.

{table}

Start-up interrupts {BEFORE_ENTRY} (the toolkit's handler is installed by the first statements of
cli/main.py; what comes before them is Python's): {phases}.

Examples of failures: {failures}
"""


if __name__ == "__main__":
    sys.exit(main())
