"""`seqspectral evaluate brackets`: the summary, the report, JSON, and bad input."""

import json

from seqspectral.cli.main import main

GOLD = "( (S (NP-SBJ (DT The) (NN dog)) (VP (VBD barked) (ADVP (RB loudly))) (. .)))\n( (S (NP (NNS dogs)) (VP (VBP bark))))\n"
TEST = "( (S (NP (DT The)) (NN dog) (VP (VBD barked) (PRT (RB loudly))) (. .)))\n( (S (NP (NNS dogs)) (VP (VBP bark))))\n"


def test_summary_json_and_report(tmp_path, capsys):
    (tmp_path / "g").write_text(GOLD)
    (tmp_path / "t").write_text(TEST)
    assert main(["evaluate", "brackets", str(tmp_path / "g"), str(tmp_path / "t"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["all"]
    assert (out["matched"], out["gold_brackets"], out["test_brackets"]) == (6, 7, 7)  # the root ignored
    assert main(["evaluate", "brackets", str(tmp_path / "g"), str(tmp_path / "t"), "--json", "--keep-root"]) == 0
    out = json.loads(capsys.readouterr().out)["all"]
    assert (out["matched"], out["gold_brackets"], out["test_brackets"]) == (8, 9, 9)
    assert main(["evaluate", "brackets", str(tmp_path / "g"), str(tmp_path / "t"), "--report"]) == 0
    assert "Bracketing FMeasure       =  85.71" in capsys.readouterr().out
    assert main(["evaluate", "brackets", str(tmp_path / "g"), str(tmp_path / "t")]) == 0
    assert capsys.readouterr().out.split("\n")[3].split() == ["f1", "85.71", "85.71"]


def test_bad_input_exits_2_naming_file_and_line(tmp_path, capsys):
    (tmp_path / "g").write_text(GOLD)
    (tmp_path / "t").write_text(TEST.replace("(VBP bark))))", "(VBP bark)))"))
    assert main(["evaluate", "brackets", str(tmp_path / "g"), str(tmp_path / "t")]) == 2
    assert f"{tmp_path / 't'}:2: a bracket opened here is never closed" in capsys.readouterr().err
    (tmp_path / "t").write_text(TEST.split("\n")[0] + "\n")
    assert main(["evaluate", "brackets", str(tmp_path / "g"), str(tmp_path / "t")]) == 2
    assert "has 2 trees but" in capsys.readouterr().err
