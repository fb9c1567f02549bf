"""`seqspectral grammar train|parse` on the bundled toy treebank: the model file, the parses in
the input's bracket style, gold tags, the length cap's flat trees counted, text input, JSON."""

import json

import pytest

from seqspectral.cli.main import main
from tests.cli.test_grammar_fuzz import GRAMMARS, TOY, TOY_TEST

pytestmark = GRAMMARS


@pytest.fixture(scope="module")
def grammar(tmp_path_factory):
    path = tmp_path_factory.mktemp("grammar") / "toy.npz"
    assert main(["grammar", "train", str(TOY), "--method", "pcfg", "-o", str(path), "--quiet"]) == 0
    return path


def test_train_says_what_it_trained(tmp_path, capsys):
    out = tmp_path / "g.npz"
    assert main(["grammar", "train", str(TOY), "--method", "pcfg", "-o", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n_trees"] == 300 and summary["method"] == "pcfg" and out.exists()
    assert main(["grammar", "train", str(TOY), "--method", "pcfg", "--states", "4", "-o", str(out)]) == 2


def test_parse_keeps_the_input_style_and_scores_well(grammar, tmp_path, capsys):
    out = tmp_path / "parsed.mrg"
    assert main(["grammar", "parse", str(grammar), str(TOY_TEST), "-o", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert summary["n_sentences"] == len(lines) == 60 and all(line.startswith("( (") for line in lines)  # as input
    flat = [i for i, line in enumerate(lines) if not line.startswith("( (S")]  # the fallback: tags under the root
    assert flat == summary["no_parse"]
    assert main(["evaluate", "brackets", str(TOY_TEST), str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["all"]["f1"] > 85  # a PCFG of the generating grammar's shape
    assert main(["grammar", "parse", str(grammar), str(TOY_TEST), "-o", str(out), "--tags", "gold", "--quiet"]) == 0
    assert main(["evaluate", "brackets", str(TOY_TEST), str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["all"]["tagging_accuracy"] == 100.0


def test_the_length_cap_gives_counted_flat_trees(grammar, tmp_path, capsys):
    out = tmp_path / "parsed.mrg"
    assert main(["grammar", "parse", str(grammar), str(TOY_TEST), "-o", str(out), "--max-length", "8", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    long = [i for i, line in enumerate(TOY_TEST.read_text().splitlines()) if line.count("(") - line.count("( (") > 0
            and len([w for w in line.replace(")", " ").split() if not w.startswith("(")]) > 8]
    assert summary["too_long"] == long and long
    assert len(out.read_text().splitlines()) == 60


def test_text_input_and_standard_output(grammar, tmp_path, capsys):
    text = tmp_path / "s.txt"
    text.write_text("he saw the dog .\nshe bought a big company .\n", encoding="utf-8")
    assert main(["grammar", "parse", str(grammar), str(text), "-o", "-", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("(ROOT (S (NP (PRP he))")
    assert main(["grammar", "parse", str(grammar), str(text), "-o", "-", "--tags", "gold"]) == 2
