"""`seqspectral corpus stats`: counts, JSON, and exit 2 with file:line on bad input."""

import json
import subprocess
import sys

import pytest

from seqspectral.cli.main import main


def stats(capsys, *args):
    status = main(["corpus", "stats", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def test_bundled_sample(capsys, corpora_dir):
    status, out, err = stats(capsys, corpora_dir / "ewt-sample.conllu", "--json")
    assert status == 0 and err == ""
    result = json.loads(out)
    assert (result["n_sequences"], result["n_tokens"], result["vocabulary_size"]) == (300, 7027, 17)
    status, out, _ = stats(capsys, corpora_dir / "ewt-sample.conllu", "--tagset", "universal12", "--field", "upos")
    assert status == 0 and "n_sequences      300" in out and "vocabulary_size  12" in out


def test_pautomac_and_text(capsys, corpora_dir, tmp_path):
    status, out, _ = stats(capsys, corpora_dir / "toy.pautomac.train", "--json")
    result = json.loads(out)
    assert status == 0 and result["n_sequences"] == 2000 and result["vocabulary_size"] == 4
    text = tmp_path / "t.txt"
    text.write_text("a b c\nb\n\n")
    status, out, _ = stats(capsys, text, "--json")
    result = json.loads(out)
    assert (result["n_sequences"], result["n_tokens"], result["vocabulary_size"], result["length_min"]) == (3, 4, 3, 0)


@pytest.mark.parametrize("split, n, tokens", [("train", 12544, 204577), ("dev", 2001, 25147), ("test", 2077, 25094)])
def test_shared_ewt(capsys, ewt_dir, split, n, tokens):
    status, out, _ = stats(capsys, ewt_dir / f"en_ewt-ud-{split}.conllu", "--json", "--field", "form")
    result = json.loads(out)
    assert status == 0 and (result["n_sequences"], result["n_tokens"]) == (n, tokens)


def test_every_malformed_case_exits_2_naming_file_and_line(capsys, malformed_files):
    for name, (fmt, path, line) in malformed_files.items():
        status, out, err = stats(capsys, path)
        assert status == 2, name
        assert out == "" and err.count("\n") == 1, name
        assert err.startswith("seqspectral: error: ") and f"{path}:{line}:" in err, name


def test_skip_reports_the_count(capsys, malformed_files):
    _, path, _ = malformed_files["conllu-cycle"]
    status, out, err = stats(capsys, path, "--errors", "skip", "--json")
    assert status == 0 and json.loads(out)["n_skipped"] == 1 and json.loads(out)["n_sequences"] == 1
    assert "skipped 1 malformed" in err


def test_missing_file_and_real_exit_status(tmp_path, malformed_files):
    _, path, line = malformed_files["pautomac-length"]
    run = subprocess.run([sys.executable, "-m", "seqspectral.cli.main", "corpus", "stats", str(path)],
                         capture_output=True, text=True)
    assert run.returncode == 2 and f"{path}:{line}:" in run.stderr and len(run.stderr.splitlines()) == 1
    assert main(["corpus", "stats", str(tmp_path / "missing.conllu")]) == 2


def test_encoding_option_and_its_suggestion(capsys, tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("año pasado\nseñor\n".encode("latin-1"))
    status, out, err = stats(capsys, path)
    *notes, error = err.splitlines()
    assert status == 2 and f"{path}:1:" in error and "--encoding" in error and error.startswith("seqspectral: error")
    assert notes == []  # found while detecting the format: nothing is said about a format first
    status, out, _ = stats(capsys, path, "--encoding", "latin-1", "--json")
    assert status == 0 and json.loads(out)["n_tokens"] == 3
    with pytest.raises(SystemExit) as exit_:  # an argparse type: usage error, status 2
        stats(capsys, path, "--encoding", "no-such-codec")
    assert exit_.value.code == 2 and "unknown text encoding" in capsys.readouterr().err


def test_detection_is_reported_and_treebank_figures(capsys, tmp_path):
    rows = ["1\tA\ta\tX\tX\t_\t0\troot\t_\t_", "2\tb\tb\tX\tX\t_\t0\troot\t_\t_", ""]
    path = tmp_path / "corpus.train"  # 10 columns under a name that says nothing
    path.write_text("\n".join(rows) + "\n")
    status, out, err = stats(capsys, path, "--json")
    result = json.loads(out)
    assert status == 0 and result["format"] == "conllx" and result["n_several_roots"] == 1
    assert "read as conllx" in err and "--format" in err
    conllu = tmp_path / "c.conllu"
    conllu.write_text("\n".join(rows) + "\n")
    status, out, err = stats(capsys, conllu, "--json")
    assert status == 0 and "several root attachments" in err and "warning" in err


def test_standard_input(capsys, monkeypatch, corpora_dir):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((corpora_dir / "toy.pautomac.train").read_bytes())))
    status, out, err = stats(capsys, "-", "--json")
    assert status == 0 and json.loads(out)["n_sequences"] == 2000 and "read as pautomac" in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"3 4\n2 0 1\n3 1 1\n0\n")))
    status, out, err = stats(capsys, "-", "--format", "pautomac")
    assert status == 2 and "<stdin>:3:" in err


def test_linear_memory_on_a_60000_word_sentence(capsys, tmp_path):
    n = 60_000
    rows = [f"{i}\tw\tw\tX\tX\t_\t{i - 1}\tdep\t_\t_" for i in range(1, n + 1)]
    path = tmp_path / "long.conllu"
    path.write_text("\n".join(rows) + "\n\n")
    status, out, _ = stats(capsys, path, "--json")
    result = json.loads(out)
    assert status == 0 and result["length_max"] == n and result["n_nonprojective"] == 0


def test_every_option_has_help():
    import argparse

    from seqspectral.cli.main import build_parser

    (group,) = [a for a in build_parser("corpus")._actions if isinstance(a, argparse._SubParsersAction)]
    (leaves,) = [a for a in group.choices["corpus"]._actions if isinstance(a, argparse._SubParsersAction)]
    for name, leaf in leaves.choices.items():
        assert all(action.help for action in leaf._actions), name


def test_top_level_help_is_fast_and_imports_no_library():
    code = ("import sys, contextlib, io\n"
            "from seqspectral.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try: main(['--help'])\n"
            "    except SystemExit: pass\n"
            "heavy = [m for m in ('numpy', 'numba', 'scipy', 'seqspectral.corpus', 'seqspectral.lm') if m in sys.modules]\n"
            "print(heavy)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "[]", run.stdout + run.stderr
