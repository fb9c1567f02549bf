"""Fuzzing (hypothesis): mutated treebanks, n-best files and model files of every kind given to
the commands that read them. Whatever the damage: exit 0 or 2, never 1 and never a traceback,
one line on stderr for an error, and no output file left behind on an error."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from evaluation.robustness import json_leaves, npy_bytes  # noqa: E402  (the battery's model-file mutations)
from seqspectral.cli.main import main  # noqa: E402

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
SAMPLE = CORPORA / "ewt-sample.conllu"
FUZZ = settings(max_examples=25, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _head(path: Path, n_sentences: int) -> str:
    blocks = path.read_text(encoding="utf-8").split("\n\n")
    return "\n\n".join(blocks[:n_sentences]) + "\n\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small treebank, its n-best tag lists, and a model file of every kind."""
    d = tmp_path_factory.mktemp("fuzz")
    small = d / "small.conllu"
    small.write_text(_head(SAMPLE, 40), encoding="utf-8")
    runs = {
        "lm_spectral.npz": ["lm", "train", SAMPLE, "--method", "spectral", "--states", "4"],
        "lm_hmm.npz": ["lm", "train", SAMPLE, "--method", "em-tensor", "--states", "3"],
        "lm_ngram.npz": ["lm", "train", SAMPLE, "--method", "ngram"],
        "tree.npz": ["tree", "train", SAMPLE],
        "tree_em.npz": ["tree", "train", small, "--method", "em", "--dim", "3", "--n-iter", "3"],
        "tagger.npz": ["tag", "train", small, "--epochs", "1", "--hash-bits", "10"],
        "parser.npz": ["parse", "train", small, "--epochs", "1", "--hash-bits", "10"],
        "emb.npz": ["embed", SAMPLE, "--dim", "4", "--output", d / "emb.txt", "--model"],
    }
    for name, argv in runs.items():
        flag = [] if argv[-1] == "--model" else ["-o"]
        assert main([str(a) for a in [*argv, *flag, d / name, "--quiet"]]) == 0, name
    assert main(["tag", "run", str(d / "tagger.npz"), str(small), "-k", "3", "-o", str(d / "nbest.conllu"),
                 "--quiet"]) == 0
    assert main(["rerank", "train", str(d / "nbest.conllu"), "--gold", str(small), "--candidates", "tags",
                 "--epochs", "1", "--lm", str(d / "lm_ngram.npz"), "-o", str(d / "reranker.npz"), "--quiet"]) == 0
    return d


def _exit(capsys, argv, output: Path | None) -> None:
    """Run; check the contract (0 or 2, one line, no partial output)."""
    if output is not None and output.exists():
        output.unlink()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:  # argparse
        code = e.code
    err = capsys.readouterr().err
    assert code in (0, 2), err
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        assert err.count("seqspectral: error:") == 1 and err.rstrip().endswith(err.rstrip().splitlines()[-1])
        assert output is None or not output.exists()


# -- treebanks -----------------------------------------------------------------------------

LINE_MUTATIONS = st.sampled_from(["drop", "duplicate", "swap", "cell", "bytes", "blank", "truncate"])
CELLS = st.one_of(st.sampled_from(["_", "", "-1", "0", "99", str(2 ** 63), "1.5", "1-2", "nan", "\t", "#", "é"]),
                  st.text(max_size=6))


@st.composite
def mutated_text(draw, text: str):
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        what = draw(LINE_MUTATIONS)
        if what == "drop":
            del lines[i]
        elif what == "duplicate":
            lines.insert(i, lines[i])
        elif what == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif what == "cell":
            cells = lines[i].split("\t")
            cells[draw(st.integers(0, len(cells) - 1))] = draw(CELLS)
            lines[i] = "\t".join(cells)
        elif what == "blank":
            lines.insert(i, draw(st.sampled_from(["", " ", "\t", "# x"])))
        elif what == "truncate":
            lines = lines[:i]
        else:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))] + draw(st.text(max_size=4))
        if not lines:
            lines = [""]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):  # raw byte damage: invalid UTF-8, NULs
        k = draw(st.integers(0, max(len(data) - 1, 0)))
        data = data[:k] + draw(st.binary(min_size=1, max_size=3)) + data[k:]
    return data


@FUZZ
@given(data=st.data())
def test_mutated_treebanks(files, tmp_path, capsys, data):
    text = (files / "small.conllu").read_text(encoding="utf-8")
    path = tmp_path / "t.conllu"
    path.write_bytes(data.draw(mutated_text(text[:6000])))
    out = tmp_path / "out"
    command = data.draw(st.sampled_from([
        ["tree", "train", path, "-o", out, "--quiet"],
        ["lm", "train", path, "--method", "ngram", "-o", out, "--quiet"],
        ["tree", "score", files / "tree.npz", path, "-o", out],
        ["tag", "run", files / "tagger.npz", path, "-o", out, "--quiet"],
        ["parse", "run", files / "parser.npz", path, "-k", "2", "-o", out, "--quiet"],
        ["tag", "train", path, "--epochs", "1", "--hash-bits", "8", "-o", out, "--quiet"],
        ["embed", path, "--dim", "2", "-o", out, "--quiet"],
        ["evaluate", "parse", path, files / "small.conllu"],
    ]))
    _exit(capsys, command, out if "-o" in command else None)


@FUZZ
@given(data=st.data())
def test_mutated_nbest_files(files, tmp_path, capsys, data):
    text = (files / "nbest.conllu").read_text(encoding="utf-8")
    path = tmp_path / "n.conllu"
    path.write_bytes(data.draw(mutated_text(text[:8000])))
    out = tmp_path / "out"
    command = data.draw(st.sampled_from([
        ["rerank", "apply", files / "reranker.npz", path, "--lm", files / "lm_ngram.npz", "-o", out, "--quiet"],
        ["rerank", "train", path, "--gold", files / "small.conllu", "--candidates", "tags", "--epochs", "1",
         "-o", out, "--quiet"],
    ]))
    _exit(capsys, command, out)


# -- model files ---------------------------------------------------------------------------

#: model file -> a command that reads it (MODEL and OUT filled in)
READERS = {
    "lm_spectral.npz": ["lm", "score", "MODEL", SAMPLE, "-o", "OUT"],
    "lm_hmm.npz": ["lm", "score", "MODEL", SAMPLE, "-o", "OUT"],
    "lm_ngram.npz": ["lm", "eval", "MODEL", SAMPLE],
    "tree.npz": ["tree", "score", "MODEL", SAMPLE, "-o", "OUT"],
    "tree_em.npz": ["tree", "score", "MODEL", SAMPLE, "-o", "OUT"],
    "tagger.npz": ["tag", "run", "MODEL", "SMALL", "-o", "OUT", "--quiet"],
    "parser.npz": ["parse", "run", "MODEL", "SMALL", "-k", "2", "-o", "OUT", "--quiet"],
    "reranker.npz": ["rerank", "apply", "MODEL", "NBEST", "--lm", "LM", "-o", "OUT", "--quiet"],
    "emb.npz": None,  # read by the library only
}
JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(allow_nan=True),
                        st.text(max_size=5), st.lists(st.integers(0, 3), max_size=3), st.just({"kind": "hmm"}),
                        st.just(["deprel"] * 2), st.just(10 ** 30))


def _members(path: Path) -> dict:
    with zipfile.ZipFile(path) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def _set(value, path, new):
    if not path:
        return new
    value[path[0]] = _set(value[path[0]], path[1:], new)
    return value


@st.composite
def damaged_model(draw, path: Path) -> bytes:
    members = _members(path)
    what = draw(st.sampled_from(["header", "header", "array", "array", "bytes", "truncate", "drop", "extra"]))
    if what == "header":
        header = json.loads(np.lib.format.read_array(io.BytesIO(members["__header__.npy"])).tobytes())
        leaves = [(), *json_leaves(header)]  # the root too: the whole header replaced
        header = _set(header, draw(st.sampled_from(leaves)), draw(JSON_VALUES))
        blob = json.dumps(header, allow_nan=True).encode()
        members["__header__.npy"] = npy_bytes(np.frombuffer(blob, dtype=np.uint8))
    elif what in ("array", "drop"):
        name = draw(st.sampled_from(sorted(n for n in members if n != "__header__.npy")))
        if what == "drop":
            del members[name]
        else:
            old = np.lib.format.read_array(io.BytesIO(members[name]))
            shape = draw(st.sampled_from([old.shape, old.shape[:-1], (*old.shape[:-1], 1), (0,) * old.ndim,
                                          tuple(s + 1 for s in old.shape)]))
            dtype = draw(st.sampled_from([old.dtype, np.float32, np.int64, np.int8, np.bool_]))
            fill = draw(st.sampled_from([0, 1, -1, np.nan, np.inf, 1e300, 2 ** 40]))
            with np.errstate(all="ignore"):
                new = np.full(shape, fill).astype(dtype) if np.prod(shape) < 1e7 else old
            members[name] = npy_bytes(new)
    elif what == "extra":
        members["junk.npy"] = npy_bytes(np.zeros(draw(st.integers(0, 1 << 20)), dtype=np.uint8))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    data = out.getvalue()
    if what == "bytes":
        data = bytearray(data)
        for _ in range(draw(st.integers(1, 8))):
            data[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
        data = bytes(data)
    elif what == "truncate":
        data = data[: draw(st.integers(0, len(data) - 1))]
    return data


@pytest.mark.parametrize("name", list(READERS))
def test_damaged_model_files_of_every_kind(files, tmp_path, capsys, name):
    @FUZZ
    @given(data=st.data())
    def check(data):
        path = tmp_path / name
        path.write_bytes(data.draw(damaged_model(files / name)))
        out = tmp_path / "out"
        argv = READERS[name]
        if argv is None:
            from seqspectral import serialize

            try:
                serialize.load(path)
            except serialize.ModelFileError as e:
                assert str(path) in str(e)
            return
        fill = {"MODEL": path, "OUT": out, "SMALL": files / "small.conllu", "NBEST": files / "nbest.conllu",
                "LM": files / "lm_ngram.npz"}
        _exit(capsys, [fill.get(a, a) if isinstance(a, str) else a for a in argv], out if "OUT" in argv else None)

    check()


# -- issue 42: each class of wrong exit at its mechanism ---------------------------------------

def _refused(capsys, argv, *named, output: Path | None = None, stdin: bytes | None = None, monkeypatch=None):
    """Exit 2, one line naming each of ``named`` (not a temporary copy of standard input),
    nothing written."""
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:  # argparse
        code = e.code
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert code == 2 and len(errors) == 1, err
    assert all(str(n) in errors[0] for n in named), err
    assert "/stdin" not in errors[0], err  # not the temporary copy of standard input
    assert output is None or not output.exists()
    return errors[0]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-16-be"])
@pytest.mark.parametrize("command", ["parse run", "tag run", "show", "evaluate tag", "tree train", "corpus stats"])
def test_a_wrong_encoding_is_refused_at_the_reader_with_file_and_line(files, tmp_path, capsys, encoding, command):
    out = tmp_path / "out"
    small = files / "small.conllu"
    argv = {"parse run": ["parse", "run", files / "parser.npz", small, "-o", out],
            "tag run": ["tag", "run", files / "tagger.npz", small, "-o", out], "show": ["show", small],
            "evaluate tag": ["evaluate", "tag", small, small], "tree train": ["tree", "train", small, "-o", out],
            "corpus stats": ["corpus", "stats", small]}[command]
    line = _refused(capsys, [*argv, "--encoding", encoding], f"{small}:1: bytes that are not {encoding}", output=out)
    assert "--encoding" in line


def test_a_utf16_file_with_its_byte_order_mark_reads(files, tmp_path, capsys):
    text = (files / "small.conllu").read_text(encoding="utf-8")
    for encoding in ("utf-16", "utf-16-le"):
        path = tmp_path / f"{encoding}.conllu"
        path.write_bytes(("\ufeff" + text).encode(encoding) if encoding == "utf-16-le" else text.encode(encoding))
        assert main(["corpus", "stats", str(path), "--encoding", encoding, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["n_sequences"] == 40


def _rewritten(source: Path, target: Path, header_change=None, extra: np.ndarray | None = None) -> Path:
    members = _members(source)
    if header_change is not None:
        header = json.loads(np.lib.format.read_array(io.BytesIO(members["__header__.npy"])).tobytes())
        header_change(header)
        members["__header__.npy"] = npy_bytes(np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    if extra is not None:
        buf = io.BytesIO()
        np.lib.format.write_array(buf, extra, allow_pickle=True)
        members["extra.npy"] = buf.getvalue()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return target


def test_damaged_header_values_a_model_reads_later_are_refused_at_loading(files, tmp_path, capsys):
    out = tmp_path / "out"
    evil = _rewritten(files / "reranker.npz", tmp_path / "r.npz", lambda h: h.update(templates="evil"))
    _refused(capsys, ["rerank", "apply", evil, files / "nbest.conllu", "-o", out], evil, "'templates'", output=out)
    floor = _rewritten(files / "tree.npz", tmp_path / "t.npz", lambda h: h.update(floor_="x"))
    _refused(capsys, ["tree", "score", floor, files / "small.conllu", "-o", out], floor, "'floor_'", output=out)


@pytest.mark.parametrize("extra", [np.array([{"a": 1}], dtype=object), np.zeros(1 << 16, np.uint8)])
def test_a_member_the_schema_does_not_declare_is_refused_naming_it(files, tmp_path, capsys, extra):
    out = tmp_path / "out"
    for name, argv in (("parser.npz", ["parse", "run", "M", files / "small.conllu", "-o", out]),
                       ("tree.npz", ["tree", "score", "M", files / "small.conllu", "-o", out])):
        model = _rewritten(files / name, tmp_path / name, extra=extra)
        _refused(capsys, [model if a == "M" else a for a in argv], model, "'extra.npy'", output=out)


@pytest.mark.parametrize("argv, named, bounded", [
    (["parse", "run", "PARSER", "SMALL", "--folds", "100", "-o", "OUT"], "--folds", "jackknifing folds"),
    (["tag", "run", "TAGGER", "SMALL", "--folds", "1000000000", "-o", "OUT"], "--folds", "jackknifing folds"),
    (["parse", "run", "PARSER", "SMALL", "-k", "1000000000", "-o", "OUT"], "-k", "candidates per sentence"),
    (["tree", "train", "SMALL", "--field", "form", "--dim", "1000", "-o", "OUT"], "--dim", "hidden states of a tree"),
    (["tree", "train", "SMALL", "--method", "em", "--dim", "1000", "-o", "OUT"], "--dim", "hidden states of a tree"),
    (["rerank", "build", "SMALL", "-o", "OUT", "-k", "1000000000"], "-k", "candidates per sentence"),
    (["rerank", "build", "SMALL", "-o", "OUT", "--tag-folds", "1000000000"], "--tag-folds", "folds of the training tags"),
    (["show", "LONG"], "long.conllu", "words in a sentence to draw (a drawing's size grows with the square"),
    (["show", "LONG", "--html", "OUT"], "long.conllu", "words in a sentence to draw"),
    (["show", "LONGTREE"], "long.mrg", "sentence 1 has 1501 words; at most 1000 words in a sentence to draw"),
    (["parse", "run", "PARSER", "LONG", "-o", "OUT"], "long.conllu", "words in a sentence to parse (parsing time grows "
                                                                   "with the cube"),
])
def test_every_option_that_sizes_work_is_bounded_by_the_table(files, tmp_path, capsys, argv, named, bounded):
    """Refused naming the option or file and saying what is bounded, in the user's terms."""
    out = tmp_path / "out"
    long = tmp_path / "long.conllu"
    long.write_text("\n".join(f"{i}\tw\tw\tNOUN\tNN\t_\t{0 if i == 1 else 1}\tdep\t_\t_" for i in range(1, 1502)) + "\n\n")
    long_tree = tmp_path / "long.mrg"
    long_tree.write_text("( (S " + " ".join(["(NN w)"] * 1501) + ") )\n")
    fill = {"PARSER": files / "parser.npz", "TAGGER": files / "tagger.npz", "SMALL": files / "small.conllu",
            "OUT": out, "LONG": long, "LONGTREE": long_tree}
    _refused(capsys, [fill.get(a, a) for a in argv], named, bounded, output=out)


def test_the_bounds_table_checks_values_from_files_naming_them():
    from seqspectral.bounds import BoundError, check

    assert check("k", 50) == 50
    for value in (10 ** 9, 0, "x", True, 1.5):
        with pytest.raises(BoundError, match=r"^B/build.json: options.k"):
            check("k", value, where="B/build.json: options.k")
    with pytest.raises(BoundError, match="the training sentences"):
        check("folds", 5, most=3, most_why="the training sentences")
    with pytest.raises(BoundError, match=r"^-k 0: candidates per sentence: at least 1$"):
        check("k", 0)


@pytest.mark.parametrize("command, wrong, named", [
    (["parse", "run", "PARSER", "NBEST", "-o", "OUT"], "NBEST", "an n-best file"),
    (["tag", "run", "TAGGER", "NBEST", "-o", "OUT"], "NBEST", "an n-best file"),
    (["evaluate", "parse", "NBEST", "SMALL"], "NBEST", "an n-best file"),
    (["evaluate", "tag", "NBEST", "SMALL"], "NBEST", "an n-best file"),
    (["tag", "train", "NBEST", "-o", "OUT"], "NBEST", "an n-best file"),
    (["rerank", "apply", "RERANKER", "SMALL", "-o", "OUT"], "SMALL", "nbest_rank"),
    (["tag", "train", "TEXT", "-o", "OUT"], "TEXT", "UPOS column is empty"),
    (["tag", "train", "UNTAGGED", "-o", "OUT"], "UNTAGGED", "UPOS column is empty"),
    (["parse", "train", "TEXT", "-o", "OUT"], "TEXT", "holds no trees"),
    (["parse", "run", "BUILD", "SMALL", "-o", "OUT"], "BUILD", "a build directory"),
    (["tag", "run", "DEVICE", "SMALL", "-o", "OUT"], "DEVICE", "a character device"),
])
def test_an_input_of_the_wrong_kind_is_refused_saying_what_it_is(files, tmp_path, capsys, command, wrong, named):
    out = tmp_path / "out"
    small = files / "small.conllu"
    untagged = tmp_path / "untagged.conllu"
    untagged.write_text("\n".join("\t".join(c[:3] + ["_", "_"] + c[5:]) if len(c := line.split("\t")) == 10 else line
                                  for line in small.read_text().split("\n")))
    text = tmp_path / "text.txt"
    text.write_text("The cat sat on the mat. It was warm.\n\nA dog barked.\n")
    build = tmp_path / "B"
    build.mkdir()
    (build / "build.json").write_text("{}")
    device = tmp_path / "device.npz"
    device.symlink_to("/dev/null")
    fill = {"PARSER": files / "parser.npz", "TAGGER": files / "tagger.npz", "RERANKER": files / "reranker.npz",
            "NBEST": files / "nbest.conllu", "SMALL": small, "OUT": out, "TEXT": text, "UNTAGGED": untagged,
            "BUILD": build, "DEVICE": device}
    _refused(capsys, [fill.get(a, a) for a in [*command, "--quiet"]], fill[wrong], named, output=out)


def test_an_empty_file_is_an_empty_corpus_for_corpus_stats(tmp_path, capsys):
    empty = tmp_path / "empty.conllu"
    empty.write_text("")
    assert main(["corpus", "stats", str(empty), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["n_sequences"] == 0 and stats["n_tokens"] == 0


@pytest.mark.parametrize("data", [b"", b"\x7fELF\x02\x01\x01\x00\xd0\xff" * 20])
@pytest.mark.parametrize("command", [["show", "-"], ["tag", "run", "TAGGER", "-", "-o", "OUT"],
                                     ["evaluate", "parse", "-", "SMALL"]])
def test_standard_input_is_named_stdin_with_its_undecodable_byte(files, tmp_path, capsys, monkeypatch, data, command):
    out = tmp_path / "out"
    fill = {"TAGGER": files / "tagger.npz", "OUT": out, "SMALL": files / "small.conllu"}
    line = _refused(capsys, [fill.get(a, a) for a in command], "<stdin>", output=out, stdin=data,
                    monkeypatch=monkeypatch)
    if data:
        assert "<stdin>:1: bytes that are not utf-8 (b'\\xd0')" in line


def test_a_build_parser_on_tagged_input_does_not_call_its_tags_unseen(files, tmp_path, capsys):
    """A parser file without a profile of its training columns (a build's) warns only about
    what it can tell: empty columns, not 'never seen' values."""
    bare = _rewritten(files / "parser.npz", tmp_path / "p.npz", lambda h: h.pop("input_profile", None))
    assert main(["parse", "run", str(bare), str(files / "small.conllu"), "-o", str(tmp_path / "out")]) == 0
    assert "never seen" not in capsys.readouterr().err


def test_sigint_from_the_entry_module_on_is_exit_130_with_one_line():
    """As the program, the entry module takes SIGINT from its first lines: before main starts,
    the process ends at once with status 130 and one line."""
    import subprocess
    import sys

    code = ("import sys; sys.argv[0] = 'seqspectral'\n"
            "import os, signal, time\n"
            "import seqspectral.cli.main\n"
            "os.kill(os.getpid(), signal.SIGINT); time.sleep(10)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 130 and run.stderr == "seqspectral: interrupted (SIGINT)\n", run.stderr


def test_the_entry_module_installs_its_handler_before_any_import():
    """The toolkit's window before its handler: nothing the entry module imports first may
    be a module Python's start-up has not already loaded (``signal``'s import took 25 ms)."""
    import ast
    import subprocess
    import sys

    tree = ast.parse(Path(main.__code__.co_filename).read_text())
    statements = [node for node in tree.body if not (isinstance(node, ast.Expr) or isinstance(node, ast.ImportFrom)
                                                     and node.module == "__future__")]
    before = statements[:next(i for i, node in enumerate(statements) if isinstance(node, ast.If))]
    names = [alias.name for node in before if isinstance(node, ast.Import) for alias in node.names]
    loaded = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sys.modules))"], capture_output=True,
                            text=True, check=True).stdout.split()
    assert names and set(names) <= set(loaded), (names, "are imported before the handler")


def test_python_m_runs_one_entry_module_so_usage_errors_exit_2():
    """Run as ``python -m seqspectral.cli.main``, the command modules' ``from .main import
    UsageError`` is the entry module itself: a usage error is exit 2 with one line (it was
    exit 1, "internal error: UsageError", a second copy's class)."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "seqspectral.cli.main", "show", str(SAMPLE), "--sent-id", "nope"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stderr == f"seqspectral: error: {SAMPLE}: no sentence with sent_id nope\n", \
        run.stderr


def test_an_interrupt_once_the_output_is_in_place_finds_the_work_done(tmp_path):
    """SIGINT right after the output replaced its target (as the program, a real signal):
    the work is done, exit 0 with the whole output, no temporary file (it was exit 130
    beside the complete output: 2 of 38 SIGINTs across the write window)."""
    import subprocess
    import sys

    out = tmp_path / "tree.npz"
    code = ("import os, signal, sys\n"
            "import seqspectral.io as io\n"
            "commit = io._commit\n"
            "def then_interrupted(tmp, path):\n"
            "    commit(tmp, path)\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "io._commit = then_interrupted\n"
            "from seqspectral.cli.main import main\n"
            "sys.exit(main())\n")
    run = subprocess.run([sys.executable, "-c", code, "tree", "train", str(SAMPLE), "-o", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "interrupted" not in run.stderr, run.stderr
    assert out.exists() and not list(tmp_path.glob(".*.tmp"))


def test_a_temporary_file_a_with_block_left_is_removed_at_the_boundary(files, tmp_path, capsys, monkeypatch):
    """An interrupt raised in a ``with`` block's ``__exit__`` before the atomic writer's
    generator resumes leaves its temporary file to nobody: the command's boundary removes it
    (exit 130, one line, nothing in the directory)."""
    import seqspectral.cli.tree as tree_commands
    from seqspectral.io import atomic_open

    kept = []  # the suspended writer outlives the command, as a frame held by a traceback would

    def interrupted_in_exit(args):
        writer = atomic_open(args.output, "wb")
        writer.__enter__().write(b"half")
        kept.append(writer)
        raise KeyboardInterrupt

    monkeypatch.setattr(tree_commands, "run_train", interrupted_in_exit)
    out = tmp_path / "tree.npz"
    assert main(["tree", "train", str(files / "small.conllu"), "-o", str(out)]) == 130
    assert capsys.readouterr().err == "seqspectral: interrupted\n"
    assert list(tmp_path.iterdir()) == []


def test_a_model_run_on_another_tag_set_warns(files, tmp_path, capsys):
    other = tmp_path / "other.conllu"
    other.write_text("\n".join("\t".join(c[:3] + ["x" + c[3].lower()] + c[4:]) if len(c := line.split("\t")) == 10
                               else line for line in (files / "small.conllu").read_text().split("\n")))
    assert main(["parse", "run", str(files / "parser.npz"), str(other), "-o", str(tmp_path / "out")]) == 0
    assert "100% of the UPOS values were never seen in training" in capsys.readouterr().err


def test_an_output_fault_names_the_path_given_not_the_temporary_file(files, tmp_path, capsys, monkeypatch):
    import os

    def refuse(path, mode):  # the temporary file cannot be given its mode: as on a file system that refuses it
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(os, "chmod", refuse)
    out = tmp_path / "out.conllu"
    _refused(capsys, ["tag", "run", files / "tagger.npz", files / "small.conllu", "-o", out, "--quiet"],
             f"{out}: Permission denied", output=out)
    assert not list(tmp_path.glob(".out.conllu.*"))
