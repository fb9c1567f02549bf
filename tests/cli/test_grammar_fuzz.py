"""Malformed bracketed treebanks, wrong model files and interrupts given to the phrase-structure
commands (`grammar train|parse`, `evaluate brackets`, `show`): exit 2 (one line naming the file
and line) or 130, never 1 or a traceback, and nothing half-written. The helpers are
tests/cli/test_fuzz.py's."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_fuzz import FUZZ, _exit, mutated_text  # the project's fuzz contract and mutations

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from seqspectral.cli.main import main  # noqa: E402

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
TOY, TOY_TEST = CORPORA / "toy-treebank.mrg", CORPORA / "toy-treebank-test.mrg"
#: the grammars (lpcfg-grammar's part of issue 37); the tests that train or parse need them
GRAMMARS = pytest.mark.skipif(importlib.util.find_spec("seqspectral.constituency.training") is None,
                              reason="seqspectral.constituency's grammars are not on this branch")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A dependency model (what the grammar commands must refuse) and, with the grammars, a toy grammar."""
    d = tmp_path_factory.mktemp("grammar-fuzz")
    small = d / "small.conllu"
    small.write_text("\n\n".join((CORPORA / "ewt-sample.conllu").read_text(encoding="utf-8").split("\n\n")[:30])
                     + "\n\n", encoding="utf-8")
    assert main(["parse", "train", str(small), "--epochs", "1", "--hash-bits", "10", "-o", str(d / "parser.npz"),
                 "--quiet"]) == 0
    if importlib.util.find_spec("seqspectral.constituency.training") is not None:
        assert main(["grammar", "train", str(TOY), "--method", "pcfg", "-o", str(d / "grammar.npz"), "--quiet"]) == 0
    return d


@pytest.mark.parametrize("text, line, reason", [
    ("( (S (NP (DT a)) (VP (VBD ran)) (. .)) )\n( (S (NP (DT the) (NN dog)) (VP (VBD ran) )\n", 2, "never closed"),
    ("( (S (NP (DT a)) (VP (VBD ran)) (. .)) )\n( (S (NP (DT a)) (VP (VBD ran))) ) )\n", 2, "closing bracket"),
    ("( (S (NP (DT a)) (VP (VBD ran)) (. .)) )\n\n()\n", 3, "an empty tree"),
    ("( (S (NP (DT a)) (VP (VBD ran)) (. .)) )\n( (S (NP-SBJ (-NONE- *)) (VP (-NONE- *T*))) )\n", 2,
     "a tree without words"),
    ("( (S (NP (DT a)) (VP (VBD ran)) (. .)) )\n( (S (NP (DT a) dog) (VP (VBD ran))) )\n", 2, "beside brackets"),
])
def test_malformed_treebanks_exit_2_naming_file_and_line(tmp_path, capsys, models, text, line, reason):
    path = tmp_path / "bad.mrg"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    commands = [["grammar", "train", path, "-o", out, "--quiet"], ["show", path],
                ["grammar", "parse", models / "parser.npz", path, "-o", out]]
    if "-NONE-" not in text:  # evaluate reads trees as written (EVALB's way): only empty elements is a skip
        commands.append(["evaluate", "brackets", path, path])
    for argv in commands:
        _exit(capsys, argv, out if "-o" in argv else None)
        assert main([str(a) for a in argv]) == 2
        err = capsys.readouterr().err
        if argv[1] != "parse":  # grammar parse refuses the dependency model first
            assert f"{path}:{line}: " in err and reason in err, err


def test_skip_trains_on_the_good_trees_and_counts_the_others(tmp_path, capsys):
    path = tmp_path / "some-bad.mrg"
    path.write_text("()\n" + TOY.read_text(encoding="utf-8") + "( (S (NP (DT a)) )\n", encoding="utf-8")
    # reading is done before training: with --errors raise the first bad tree stops it
    assert main(["grammar", "train", str(path), "-o", str(tmp_path / "g.npz"), "--quiet"]) == 2
    assert f"{path}:1: an empty tree" in capsys.readouterr().err
    assert not (tmp_path / "g.npz").exists()


def test_a_dependency_model_or_a_treebank_given_to_the_grammar_commands(tmp_path, capsys, models):
    out = tmp_path / "out.mrg"
    _exit(capsys, ["grammar", "parse", models / "parser.npz", TOY_TEST, "-o", out], out)
    assert main(["grammar", "parse", str(models / "parser.npz"), str(TOY_TEST), "-o", str(out)]) == 2
    assert "dependency_parser" in capsys.readouterr().err
    conllu = CORPORA / "ewt-sample.conllu"
    assert main(["grammar", "train", str(conllu), "-o", str(out), "--quiet"]) == 2
    assert "not bracketed trees" in capsys.readouterr().err and not out.exists()


@FUZZ
@given(data=st.data())
def test_mutated_bracketed_treebanks(models, tmp_path, capsys, data):
    path = tmp_path / "t.mrg"
    path.write_bytes(data.draw(mutated_text(TOY_TEST.read_text(encoding="utf-8")[:3000])))
    out = tmp_path / "out"
    commands = [["evaluate", "brackets", TOY_TEST, path], ["evaluate", "brackets", path, path, "--json"],
                ["show", path, "--limit", "3"], ["show", path, "--html", out, "--quiet"],
                ["corpus", "stats", path, "--format", "bracketed", "--field", "xpos"]]
    if (models / "grammar.npz").exists():
        commands += [["grammar", "train", path, "--method", "pcfg", "-o", out, "--quiet"],
                     ["grammar", "parse", models / "grammar.npz", path, "-o", out, "--quiet"]]
    command = data.draw(st.sampled_from(commands))
    _exit(capsys, command, out if out in command else None)


@GRAMMARS
def test_an_interrupted_train_or_parse_exits_130_writing_nothing(tmp_path, capsys, models, monkeypatch):
    import seqspectral.constituency as constituency

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    out = tmp_path / "g.npz"
    monkeypatch.setattr(constituency, "train_grammar", interrupted)
    assert main(["grammar", "train", str(TOY), "-o", str(out), "--quiet"]) == 130
    assert capsys.readouterr().err.strip() == "seqspectral: interrupted" and not out.exists()
    grammar_class = type(__import__("seqspectral.serialize", fromlist=["load"]).load(models / "grammar.npz"))
    monkeypatch.setattr(grammar_class, "parse", interrupted)
    out = tmp_path / "parsed.mrg"
    assert main(["grammar", "parse", str(models / "grammar.npz"), str(TOY_TEST), "-o", str(out), "--quiet"]) == 130
    assert not out.exists() and not list(tmp_path.glob("*.tmp"))


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (/proc/PID/status, SigCgt)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), 0)
    return bool(mask >> (signum - 1) & 1)


@GRAMMARS
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_a_real_sigint_during_parse_leaves_nothing(tmp_path, models):
    """SIGINT at three moments of `grammar parse -o` on 20 copies of the toy test file (run as
    ``python -m``): 1 s after the entry module took SIGTERM (its handler: before it, the signal is
    Python's start-up's, docs/robustness.md), when the output's temporary file appears, when the
    output itself appears. Until the output is in place: 130 (or 0 when it finished first), one line, no
    output and no temporary file; once it is: the work is done, 0 and the whole output."""
    big = tmp_path / "big.mrg"
    big.write_text(TOY_TEST.read_text(encoding="utf-8") * 20, encoding="utf-8")
    statuses = []
    for i, moment in enumerate((1.0, "temporary", "output")):
        out = tmp_path / f"parsed{i}.mrg"
        proc = subprocess.Popen([sys.executable, "-m", "seqspectral.cli.main", "grammar", "parse",
                                 str(models / "grammar.npz"), str(big), "-o", str(out), "--quiet"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        if moment == 1.0:
            while proc.poll() is None and not _catches(proc.pid, signal.SIGTERM):
                time.sleep(0.001)
            time.sleep(moment)
        else:
            while proc.poll() is None and not (list(tmp_path.glob(".*.tmp")) if moment == "temporary" else out.exists()):
                time.sleep(0.001)
        proc.send_signal(signal.SIGINT)
        stdout, err = proc.communicate(timeout=300)
        statuses.append(proc.returncode)
        assert proc.returncode in ((0,) if moment == "output" else (130, 0)), (moment, proc.returncode, err)
        assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))
        if proc.returncode == 130:
            assert "interrupted" in err and err.count("\n") == 1 and not out.exists()
        else:
            assert len(out.read_text(encoding="utf-8").splitlines()) == 20 * 60
    assert 130 in statuses, statuses
