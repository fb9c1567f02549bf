"""`seqspectral lm` as a user meets it, in-process through ``main([...])``; a smoke test and
the interrupt tests (real signals) run the installed command as processes."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from seqspectral.cli.main import main
from seqspectral.lm import load_lm

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
TRAIN, DEV = CORPORA / "ewt-sample.conllu", CORPORA / "ewt-sample-dev.conllu"
DEV_SENTENCES, DEV_WORDS = 100, 2319
TOY = {s: CORPORA / f"toy.pautomac{s}" for s in (".train", ".test", "_solution.txt")}

# every method, kept small so that the file runs in seconds
METHODS = {
    "unigram": [],
    "ngram": [],
    "spectral": ["--basis-length", "1"],
    "spectral-prefix": ["--basis-length", "1"],
    "spectral-substring": ["--basis-length", "1"],
    "convex": ["--basis-length", "1"],
    "tensor": ["--states", "4", "--basis-length", "1"],
    "em": ["--states", "4", "--n-iter", "5"],
    "em-tensor": ["--states", "4", "--n-iter", "2", "--basis-length", "1"],
}


def lm(capsys, *args, status=0):
    """Run ``seqspectral lm ARGS`` in-process; (stdout, stderr), the exit status checked."""
    code = main(["lm", *map(str, args)])
    out, err = capsys.readouterr()
    assert code == status, err
    return out, err


def command(*args, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "seqspectral.cli.main", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.fixture(scope="module", autouse=True)
def samples():
    if not (TRAIN.is_file() and DEV.is_file() and TOY[".train"].is_file()):
        pytest.skip("bundled samples missing")


@pytest.fixture(scope="module")
def ngram_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("ngram") / "m.npz"
    assert main(["lm", "train", str(TRAIN), "-o", str(path), "--method", "ngram", "--dev", str(DEV), "--quiet"]) == 0
    return path


@pytest.mark.parametrize("method", list(METHODS))
def test_train_score_eval_round_trip(capsys, tmp_path, method):
    model = tmp_path / f"{method}.npz"
    lm(capsys, "train", TRAIN, "-o", model, "--method", method, "--dev", DEV, "--quiet", *METHODS[method])
    out = tmp_path / "scores.txt"
    lm(capsys, "score", model, DEV, "--log", "-o", out)
    log10 = np.array(out.read_text().split(), dtype=float)
    assert len(log10) == DEV_SENTENCES  # every sentence, in order
    assert np.all(np.isfinite(log10)) and np.all(log10 < 0)
    assert {p.name for p in tmp_path.iterdir()} == {model.name, out.name}  # no temporary file left behind
    result = json.loads(lm(capsys, "eval", model, DEV, "--json")[0])
    assert result["n_sequences"] == DEV_SENTENCES and result["n_tokens"] == DEV_WORDS
    assert result["pautomac_score"] is None and result["n_unknown"] == 0
    # eval's perplexity is the one the per-sentence probabilities of `score` imply
    assert result["perplexity"] == pytest.approx(10 ** (-log10.sum() / (DEV_WORDS + DEV_SENTENCES)), rel=1e-7)
    assert 1.0 < result["perplexity"] < 17 + 1 and 0.0 <= result["wer"] <= 1.0


def test_score_is_the_library_score_chunk_by_chunk(capsys, monkeypatch, ngram_model):
    import seqspectral.cli.lm as cli_lm

    model = load_lm(ngram_model)
    from seqspectral.corpus import read_corpus

    expected = model.model.sequence_log_probs(read_corpus(DEV, vocabulary=model.vocabulary)) / np.log(10)
    monkeypatch.setattr(cli_lm, "SCORE_CHUNK", 7)  # many chunks, the last one short
    out, _ = lm(capsys, "score", ngram_model, DEV, "--log")
    np.testing.assert_allclose(np.array(out.split(), dtype=float), expected, rtol=1e-9)
    probs = np.array(lm(capsys, "score", ngram_model, DEV)[0].split(), dtype=float)
    np.testing.assert_allclose(np.log10(probs), expected, rtol=1e-8)


def test_score_streams_pautomac_block_by_block(capsys, monkeypatch, tmp_path):
    import seqspectral.cli.lm as cli_lm
    from seqspectral.corpus import pautomac, read_corpus

    model = tmp_path / "m.npz"
    lm(capsys, "train", TOY[".train"], "-o", model, "--method", "spectral-substring", "--basis-length", "1", "--quiet")
    trained = load_lm(model)
    expected = trained.model.sequence_log_probs(read_corpus(TOY[".test"], vocabulary=trained.vocabulary)) / np.log(10)
    monkeypatch.setattr(pautomac, "BLOCK_BYTES", 100)  # a few lines per block
    monkeypatch.setattr(cli_lm, "SCORE_CHUNK", 3)
    out = tmp_path / "scores.txt"
    lm(capsys, "score", model, TOY[".test"], "--log", "-o", out)
    np.testing.assert_allclose(np.array(out.read_text().split(), dtype=float), expected, rtol=1e-9)
    broken = tmp_path / "late.pautomac.test"  # a bad string far after the first blocks
    text = TOY[".test"].read_text().splitlines()
    broken.write_text("\n".join(text[:-3] + ["3 1", *text[-2:]]) + "\n")
    _, err = lm(capsys, "score", model, broken, "-o", tmp_path / "late.txt", status=2)
    assert f"{broken}:{len(text) - 2}:" in err and not (tmp_path / "late.txt").exists()


def test_train_says_what_it_chose_and_info_says_the_same(capsys, tmp_path):
    model = tmp_path / "m.npz"
    out, _ = lm(capsys, "train", TRAIN, "-o", model, "--method", "spectral-substring", "--basis-length", "1",
                "--dev", DEV, "--json")
    summary = json.loads(out)
    assert summary["method"] == "spectral-substring" and summary["selected_on"] == "dev"
    assert summary["n_sequences"] == 300 and summary["n_symbols"] == 17 and isinstance(summary["warnings"], list)
    info = json.loads(lm(capsys, "info", model, "--json")[0])
    assert info["summary"] == load_lm(model).summary()
    assert {k: v for k, v in summary.items() if k in info["summary"]} == info["summary"]
    text, _ = lm(capsys, "train", TRAIN, "-o", model, "--method", "spectral-substring", "--basis-length", "1",
                 "--dev", DEV)
    shown = lm(capsys, "info", model)[0]
    chosen = next(line for line in shown.splitlines() if line.startswith("chosen")).split(None, 1)[1]
    assert chosen in text  # one wording in both


def test_info(capsys, ngram_model):
    meta = json.loads(lm(capsys, "info", ngram_model, "--json")[0])
    assert meta["method"] == "ngram" and meta["params"]["order"] == 3
    assert meta["vocabulary_size"] == 17 and "NOUN" in meta["vocabulary"]
    assert meta["training"]["dev"] == str(DEV) and meta["training"]["reading"]["format"] == "conllu"
    assert "method" in lm(capsys, "info", ngram_model)[0]


def test_pautomac_solution_gives_a_score_above_the_true_model(capsys, tmp_path):
    model = tmp_path / "m.npz"
    lm(capsys, "train", TOY[".train"], "-o", model, "--method", "ngram", "--quiet")
    result = json.loads(lm(capsys, "eval", model, TOY[".test"], "--solution", TOY["_solution.txt"], "--json")[0])
    true = np.loadtxt(TOY["_solution.txt"], skiprows=1)
    true = true / true.sum()
    floor = 2 ** -(true * np.log2(true)).sum()
    assert floor <= result["pautomac_score"] < 1.5 * floor and result["n_sequences"] == len(true)
    bad = tmp_path / "short_solution.txt"
    bad.write_text("2\n0.5\n0.5\n")
    assert "solution" in lm(capsys, "eval", model, TOY[".test"], "--solution", bad, status=2)[1]


def test_unknown_symbols_are_counted_warned_and_refused(capsys, tmp_path):
    train = tmp_path / "train.txt"
    train.write_text("a b c\nb c\na a b c\nc\n\nb a c\n" * 5)
    test = tmp_path / "test.txt"
    test.write_text("a z b\n\nz z\nc\n")
    model = tmp_path / "m.npz"
    for method, extra in (("ngram", []), ("spectral-substring", ["--basis-length", "1"])):
        lm(capsys, "train", train, "--format", "text", "-o", model, "--method", method, "--quiet", *extra)
        out, err = lm(capsys, "score", model, test, "--log")
        values = np.array(out.split(), dtype=float)
        assert len(values) == 4 and np.all(np.isfinite(values))
        assert "3 token(s) (50.0%)" in err and "warning" in err  # above the warning threshold
        result = json.loads(lm(capsys, "eval", model, test, "--json")[0])
        assert result["n_unknown"] == 3 and result["n_tokens"] == 6
        eps = load_lm(model).model.unknown_probability
        assert 0 < eps < 0.1
        # "z z": two unknown tokens at ε each, then the stop of the empty known history
        assert values[2] == pytest.approx(values[1] + 2 * np.log10(eps), rel=1e-9)
    other_kind = tmp_path / "words.txt"
    other_kind.write_text("the dog barks\nhello world\n")
    for sub in ("score", "eval"):
        _, err = lm(capsys, sub, model, other_kind, status=2)
        assert "100% of the tokens are unknown" in err and "--allow-unknown" in err
        lm(capsys, sub, model, other_kind, "--allow-unknown")


def test_reserved_names_are_ordinary_symbols(capsys, tmp_path):
    train = tmp_path / "train.txt"
    train.write_text("a </s> b\n<unk> a\nb a </s>\n" * 10)
    test = tmp_path / "test.txt"
    test.write_text("a </s>\n</s> <unk> b\n")
    model = tmp_path / "m.npz"
    lm(capsys, "train", train, "-o", model, "--method", "ngram", "--order", "2", "--quiet")
    trained = load_lm(model)
    assert trained.vocabulary.id("</s>") >= 2 and trained.vocabulary.id("<unk>") >= 2
    out, err = lm(capsys, "score", model, test, "--log")
    assert len(out.split()) == 2 and "unseen" not in err
    result = json.loads(lm(capsys, "eval", model, test, "--json")[0])
    assert result["n_unknown"] == 0 and result["n_tokens"] == 5


def test_conll2007_style_latin1_several_roots_ten_columns(capsys, tmp_path):
    """A CoNLL-2007-like file (Latin-1, several root attachments, 10 columns, named .train)."""
    rows = [
        [("Año", "NOUN", 0), ("pasado", "ADJ", 1), ("llovió", "VERB", 0), (".", "PUNCT", 3)],
        [("Él", "PRON", 2), ("comió", "VERB", 0)],
        [("Sí", "ADV", 0), (",", "PUNCT", 1), ("señor", "NOUN", 0)],
    ] * 20
    lines = []
    for sentence in rows:
        for i, (form, tag, head) in enumerate(sentence, 1):
            lines.append(f"{i}\t{form}\t{form.lower()}\t{tag}\t{tag}\t_\t{head}\t{'ROOT' if head == 0 else 'dep'}\t_\t_")
        lines.append("")
    train, dev = tmp_path / "basque.train", tmp_path / "basque.dev"
    train.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    dev.write_bytes(("\n".join(lines[:17]) + "\n").encode("latin-1"))
    model = tmp_path / "m.npz"
    _, err = lm(capsys, "train", train, "-o", model, "--method", "ngram", "--field", "form", status=2)
    assert "basque.train:1:" in err and "--encoding" in err  # the error says what to do
    out, err = lm(capsys, "train", train, "-o", model, "--method", "spectral-substring", "--basis-length", "1",
                  "--field", "form", "--encoding", "latin-1", "--dev", dev)
    assert "read as conllx" in err and "Traceback" not in err
    assert "Año" in load_lm(model).vocabulary.symbols
    result = json.loads(lm(capsys, "eval", model, dev, "--json")[0])  # encoding and format inherited
    assert result["n_sequences"] == 4 and result["n_tokens"] == 13 and result["n_unknown"] == 0
    assert main(["corpus", "stats", str(train), "--encoding", "latin-1", "--json"]) == 0
    stats = json.loads(capsys.readouterr()[0])
    assert stats["format"] == "conllx" and stats["n_several_roots"] == 40


def test_errors_skip_on_train_score_eval(capsys, tmp_path):
    train = tmp_path / "t.pautomac.train"
    train.write_text("4 3\n2 0 1\n3 1 1 2\n2 5 0\n1 2\n")
    model = tmp_path / "m.npz"
    assert "t.pautomac.train:4:" in lm(capsys, "train", train, "-o", model, "--method", "ngram", status=2)[1]
    _, err = lm(capsys, "train", train, "-o", model, "--method", "ngram", "--errors", "skip")
    assert "skipped 1 malformed" in err and "header declares 4 strings but the file has 4" not in err
    out, err = lm(capsys, "score", model, train, "--errors", "skip")
    assert len(out.split()) == 3 and "skipped 1" in err
    assert json.loads(lm(capsys, "eval", model, train, "--errors", "skip", "--json")[0])["n_sequences"] == 3


def test_bad_model_files_exit_2(capsys, tmp_path, ngram_model):
    truncated = tmp_path / "truncated.npz"
    data = ngram_model.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    text = tmp_path / "text.npz"
    text.write_text("a b c\n")
    directory = tmp_path / "dir.npz"
    directory.mkdir()
    for cmd, needle in ((("score", truncated, DEV), "truncated.npz"), (("info", text), "not a seqspectral model"),
                        (("eval", directory, DEV), "directory"), (("eval", tmp_path / "missing.npz", DEV), "missing")):
        _, err = lm(capsys, *cmd, status=2)
        assert needle in err and "Traceback" not in err and "pickled" not in err and err.count("\n") == 1


def test_bad_usage_exit_2(capsys, tmp_path):
    model = tmp_path / "m.npz"
    assert "regularisation" in lm(capsys, "train", TRAIN, "-o", model, "--method", "convex", "--states", "5", status=2)[1]
    with pytest.raises(SystemExit) as exit_info:
        main(["lm", "train", str(TRAIN), "-o", str(model), "--method", "em", "--states", "0"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        main(["lm", "train", str(TRAIN), "-o", str(model), "--method", "ngram", "--errors"])
    assert "usage: seqspectral lm train" in capsys.readouterr()[1]  # lm train's own usage
    with pytest.raises(SystemExit):
        main(["lm", "score", str(model), str(DEV), "--bogus"])
    assert "usage: seqspectral lm score" in capsys.readouterr()[1]
    assert "missing.conllu" in lm(capsys, "train", tmp_path / "missing.conllu", "-o", model, "--method", "ngram",
                                  status=2)[1]
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    lm(capsys, "train", empty, "--format", "text", "-o", model, "--method", "ngram", status=2)
    assert "empty.txt" in lm(capsys, "train", TRAIN, "-o", model, "--method", "ngram", "--dev", empty,
                             "--format", "text", status=2)[1]
    assert not model.exists()


def test_help_describes_every_option(capsys):
    import argparse

    from seqspectral.cli.main import build_parser
    from seqspectral.lm import METHODS

    (group,) = [a for a in build_parser("lm")._actions if isinstance(a, argparse._SubParsersAction)]
    (leaves,) = [a for a in group.choices["lm"]._actions if isinstance(a, argparse._SubParsersAction)]
    for name, leaf in leaves.choices.items():
        for action in leaf._actions:
            assert action.help, f"lm {name} {action.dest} has no help"
    with pytest.raises(SystemExit):
        main(["lm", "train", "--help"])
    out = capsys.readouterr()[0]
    assert all(f"  {m} " in out for m in METHODS) and "standard input" in out


def test_output_destination_checked_before_training(capsys, tmp_path, monkeypatch):
    import seqspectral.lm as lm_module

    def never(*args, **kwargs):
        raise AssertionError("trained before the output path was checked")

    monkeypatch.setattr(lm_module, "train_lm", never)
    for output, needle in ((tmp_path / "missing" / "m.npz", "does not exist"), (tmp_path, "is a directory"),
                           (tmp_path / ("x" * 300 + ".npz"), "too long")):
        _, err = lm(capsys, "train", TRAIN, "-o", output, "--method", "ngram", status=2)
        assert str(output) in err and needle in err and ".tmp" not in err
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        assert "not writable" in lm(capsys, "train", TRAIN, "-o", locked / "m.npz", "--method", "ngram", status=2)[1]


def test_replaced_read_only_file_keeps_its_mode_and_loops_are_errors(capsys, tmp_path, ngram_model):
    out = tmp_path / "scores.txt"
    out.write_text("old\n")
    out.chmod(0o444)
    lm(capsys, "score", ngram_model, DEV, "-o", out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o444 and len(out.read_text().split()) == DEV_SENTENCES
    loop = tmp_path / "loop.txt"
    loop.symlink_to(loop)
    assert "loop.txt" in lm(capsys, "score", ngram_model, loop, status=2)[1]
    long_name = tmp_path / ("y" * 300 + ".txt")
    assert "File name too long" in lm(capsys, "score", ngram_model, long_name, status=2)[1]
    near_limit = tmp_path / ("z" * 250 + ".txt")  # fits, but its temporary name would not without shortening
    lm(capsys, "score", ngram_model, DEV, "-o", near_limit)
    assert near_limit.is_file() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_standard_input(capsys, monkeypatch, ngram_model):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DEV.read_bytes())))
    out, err = lm(capsys, "score", ngram_model, "-", "--format", "conllu", "--log")
    assert len(out.split()) == DEV_SENTENCES


def test_smoke_train_as_a_process(tmp_path, capsys):
    """The installed command end to end: `lm train` in a fresh interpreter (`lm score` and
    `lm eval` run as processes in the interrupt test); what it wrote is a model."""
    model = tmp_path / "m.npz"
    proc = command("lm", "train", TOY[".train"], "-o", model, "--method", "unigram", "--quiet")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out == "", err
    assert "unigram" in lm(capsys, "info", model)[0]


def _wait_until_handling_sigterm(proc, timeout=60.0) -> None:
    """Until the command has installed its SIGTERM handler (Linux: SigCgt in /proc): a signal
    before that meets the interpreter's defaults, not the command."""
    status = Path(f"/proc/{proc.pid}/status")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        caught = next((line.split()[1] for line in status.read_text().splitlines() if line.startswith("SigCgt:")), "0")
        if int(caught, 16) & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.005)


def test_an_interrupt_that_library_code_turns_into_another_error_still_exits_130(tmp_path, monkeypatch, capsys):
    """numpy's import turns a KeyboardInterrupt into an ImportError: still an interrupt, not an internal error."""
    import seqspectral.lm

    def interrupted_import(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            raise ImportError("PyCapsule_Import could not import module 'datetime'") from None

    monkeypatch.setattr(seqspectral.lm, "train_lm", interrupted_import)
    status = main(["lm", "train", str(TOY[".train"]), "-o", str(tmp_path / "m.npz"), "--method", "spectral", "--quiet"])
    assert status == 130 and capsys.readouterr().err.strip() == "seqspectral: interrupted"
    monkeypatch.setattr(seqspectral.lm, "train_lm", lambda *a, **k: 1 / 0)  # a later error is not an interrupt
    assert main(["lm", "train", str(TOY[".train"]), "-o", str(tmp_path / "m.npz"), "--method", "spectral"]) == 1


def test_an_interrupt_inside_exec_of_a_string_exits_130_not_by_sigint(tmp_path):
    """CPython marks itself to die by SIGINT at exit when an interrupt passes through exec of
    a string (scipy imports that way); the command still exits with its own status."""
    script = tmp_path / "run.py"
    script.write_text(
        "import sys\n"
        "import seqspectral.lm\n"
        "from seqspectral.cli.main import main\n"
        "def interrupted(*args, **kwargs):\n"
        "    exec('import os, signal, time; os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)')\n"
        "seqspectral.lm.train_lm = interrupted\n"
        "sys.exit(main())\n")
    # run as `python -m` (as the installed command is): a script's SystemExit exits at once, a module's is checked
    proc = subprocess.run([sys.executable, "-m", "run", "lm", "train", str(TOY[".train"]), "-o", str(tmp_path / "m.npz"),
                           "--method", "spectral", "--quiet"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr.strip() == "seqspectral: interrupted (SIGTERM)"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_interrupted_score_exits_130_leaving_nothing(tmp_path):
    """Real signals at several moments of `lm score -o` and `lm eval`: exit 130, one line, no
    output, no temp file."""
    from seqspectral.corpus import read_corpus, write_pautomac

    test = tmp_path / "big.pautomac.test"
    toy = read_corpus(TOY[".test"])
    write_pautomac(test, toy.subset(np.tile(np.arange(len(toy)), 400)))
    model = tmp_path / "m.npz"
    assert main(["lm", "train", str(TOY[".train"]), "-o", str(model), "--method", "spectral-substring",
                 "--basis-length", "2", "--quiet"]) == 0
    statuses = []
    runs = [("score", 0.05, signal.SIGINT), ("score", 0.4, signal.SIGTERM), ("score", 0.8, signal.SIGINT),
            ("eval", 0.3, signal.SIGINT)]
    for i, (sub, delay, signum) in enumerate(runs):
        out = tmp_path / f"scores{i}.txt"
        # SIGINT as from a terminal (a shell starts background jobs with it ignored, and so would be the child)
        proc = command("lm", sub, model, test, *(["-o", out] if sub == "score" else ["--json"]),
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        _wait_until_handling_sigterm(proc)
        time.sleep(delay)
        proc.send_signal(signum)
        stdout, err = proc.communicate(timeout=120)
        statuses.append(proc.returncode)
        assert proc.returncode in (130, 0), (sub, delay, proc.returncode, err)  # 0: finished before the signal
        assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        if proc.returncode == 130:
            assert err.count("\n") == 1 and "interrupted" in err and stdout == "" and not out.exists()
        elif sub == "score":
            assert len(out.read_text().split()) == len(toy) * 400  # complete
    assert 130 in statuses, statuses
