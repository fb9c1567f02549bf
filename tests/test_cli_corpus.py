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
