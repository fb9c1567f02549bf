"""Issue 29 items 8 and 10: the API traps and the smaller command-line items."""

from __future__ import annotations

import io
import json
import re
import signal
import sys
import warnings

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.cli.main import main
from seqspectral.corpus import Reading, read_conllu, read_corpus


def test_a_model_maps_a_foreign_vocabulary_itself(corpora_dir):
    """Dev data read without the training vocabulary scores as with it (ids re-encoded)."""
    from seqspectral.automata import SpectralWA

    train = read_corpus(corpora_dir / "ewt-sample.conllu")
    dev_path = corpora_dir / "ewt-sample-dev.conllu"
    own, shared = read_corpus(dev_path), read_corpus(dev_path, vocabulary=train.vocabulary)
    assert own.vocabulary != train.vocabulary and not np.array_equal(own.symbols, shared.symbols)
    model = SpectralWA(n_states=6).fit(train)
    np.testing.assert_array_equal(model.event_log_probs(own).log_prob, model.event_log_probs(shared).log_prob)
    hmm = model.model_  # the fitted automaton itself, too
    np.testing.assert_array_equal(hmm.event_log_probs(own).log_prob, hmm.event_log_probs(shared).log_prob)


def test_spectral_tree_model_default_is_the_command_line_s(corpora_dir, tmp_path):
    from seqspectral.dependency_trees import SpectralTreeModel

    upos = read_corpus(corpora_dir / "ewt-sample.conllu")
    model = SpectralTreeModel().fit(upos)
    assert model.representation_info_["kind"] == "identity"
    assert main(["tree", "train", str(corpora_dir / "ewt-sample.conllu"), "-o", str(tmp_path / "t.npz"),
                 "--quiet"]) == 0
    cli = serialize.load(tmp_path / "t.npz")
    np.testing.assert_allclose(cli.log_probs(upos), model.log_probs(upos))
    assert cli.reading_ == Reading(format="conllu", field="upos")
    forms = read_corpus(corpora_dir / "ewt-sample.conllu", field="form")
    assert SpectralTreeModel(8).fit(forms).representation_info_["kind"] == "svd"


def test_load_lm_returns_the_model(tmp_path, corpora_dir):
    from seqspectral.lm import TrainedLM, load_lm

    path = tmp_path / "lm.npz"
    assert main(["lm", "train", str(corpora_dir / "ewt-sample.conllu"), "-o", str(path), "--method", "ngram",
                 "--quiet"]) == 0
    lm = load_lm(path)
    assert isinstance(lm, TrainedLM) and lm.reading_ == Reading(format="conllu")


def test_old_model_files_without_a_reading_still_load(tmp_path, corpora_dir):
    """A header with the reading as the old CLI dict (or none) loads; unknown keys are ignored."""
    from seqspectral.dependency_trees import SpectralTreeModel

    model = SpectralTreeModel().fit(read_corpus(corpora_dir / "ewt-sample.conllu"))
    header, arrays = serialize.state(model)
    assert "reading" not in header
    assert not hasattr(serialize.from_state(header, arrays), "reading_")
    old = {**header, "reading": {"format": "conllx", "field": "xpos", "tagset": None, "encoding": "latin-1",
                                 "errors": "raise"}}
    assert serialize.from_state(old, arrays).reading_ == Reading("conllx", "xpos", None, "latin-1")


def test_embed_help_gives_the_field_it_uses(capsys):
    with pytest.raises(SystemExit):
        main(["embed", "--help"])
    assert "(default: form)" in " ".join(capsys.readouterr().out.split())


def test_detected_format_note_does_not_claim_an_option(tmp_path, capsys):
    path = tmp_path / "a"
    path.write_text("1\tHi\thi\tUH\tUH\t_\t0\tROOT\t_\t_\n\n")
    assert main(["corpus", "stats", str(path)]) == 0
    err = capsys.readouterr().err
    assert "read as conllx" in err and "says otherwise" not in err and "if it is not, give --format" in err


def test_library_warnings_are_one_line_without_source_paths(monkeypatch, capsys, tmp_path):
    from seqspectral.cli import corpus as corpus_cli

    def noisy(args):
        warnings.warn("something the user should know", RuntimeWarning)
        return 0

    monkeypatch.setattr(corpus_cli, "run_stats", noisy)
    path = tmp_path / "a.txt"
    path.write_text("a b\n")
    monkeypatch.setattr(sys, "argv", ["seqspectral", "corpus", "stats", str(path)])
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        main()  # as the program runs (in-process calls keep Python's warning machinery for the tests)
    finally:  # the program ignores signals once done (interpreter shutdown); this process goes on
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    err = capsys.readouterr().err
    assert "seqspectral: warning: something the user should know" in err and ".py:" not in err


def test_help_explains_the_figures(capsys):
    for command, words in ((["lm", "eval"], ("perplexity:", "wer:")), (["tree", "score"], ("n_floored:", "n_reset:")),
                           (["tree", "train"], ("embedding_coverage",))):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        out = capsys.readouterr().out
        assert all(w in out for w in words), command


def test_states_error_said_once(corpora_dir, capsys):
    assert main(["lm", "train", str(corpora_dir / "ewt-sample.conllu"), "-o", "/tmp/never.npz", "--method", "tensor",
                 "--states", "500", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("TensorHMM needs n_states") == 1 and "of 6 could be fitted" in err


def test_parser_epoch_log_per_epoch_cpu(corpora_dir, tmp_path, capsys):
    assert main(["parse", "train", str(corpora_dir / "ewt-sample-dev.conllu"), "-o", str(tmp_path / "p.npz"),
                 "--epochs", "2", "--hash-bits", "12", "--tags", "upos",
                 "--dev", str(corpora_dir / "ewt-sample-dev.conllu")]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("seqspectral: parse train: epoch")]
    assert [line.split(":")[2].split(" in ")[0] for line in lines] == [" epoch 1/2", " epoch 2/2"]
    assert all(re.search(r" in \d+\.\d s, \d+\.\d CPU s \(train UAS \d+\.\d\d, dev UAS \d+\.\d\d\)$", line)
               for line in lines)
    from evaluation.robustness import PROGRESS_LINE  # the robustness battery knows them for progress

    assert all(PROGRESS_LINE.match(line) for line in lines)
    kept = serialize.load(tmp_path / "p.npz").selection_.chosen["epochs"]
    assert f"kept epoch {kept} (best dev UAS)" in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("command", ["parse", "tag", "rerank"])
def test_training_epochs_follow_the_progress_rule(command, corpora_dir, tmp_path, capsys, monkeypatch):
    """A bar on a terminal (no line per epoch), a line per epoch in a log, nothing with --quiet."""
    dev = str(corpora_dir / "ewt-sample-dev.conllu")
    train = ["train", dev, "-o", str(tmp_path / "m.npz"), "--epochs", "3", "--hash-bits", "12", "--dev", dev]
    unit, steps = "epoch", 3
    if command == "rerank":  # tag n-best lists of the dev sample, reranked with and without the LM's column
        # (the held-out feature-set choice): 2 x (1 + 3 epochs x 3 anchors)
        assert main(["tag", "train", dev, "-o", str(tmp_path / "t.npz"), "--epochs", "2", "--quiet"]) == 0
        assert main(["tag", "run", str(tmp_path / "t.npz"), dev, "-k", "3", "-o", str(tmp_path / "n.conllu"),
                     "--quiet"]) == 0
        assert main(["lm", "train", dev, "-o", str(tmp_path / "lm.npz"), "--method", "ngram", "--quiet"]) == 0
        train = ["train", str(tmp_path / "n.conllu"), "--gold", dev, "--candidates", "tags", "--lm",
                 str(tmp_path / "lm.npz"), "-o", str(tmp_path / "m.npz"), "--epochs", "3"]
        unit, steps = "step", 20
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main([command, *train]) == 0
    shown = terminal.getvalue()
    monkeypatch.undo()
    assert "\r" in shown and f"{steps}/{steps}" in shown  # tqdm's bar, redrawn in place with the figures
    assert f"{command} train: {unit}" not in shown
    assert [line for line in shown.splitlines() if line.strip()][-1].startswith("seqspectral: ")  # the summary
    capsys.readouterr()
    assert main([command, *train]) == 0
    log = capsys.readouterr().err
    assert [line.split(":")[2].split(" in ")[0] for line in log.splitlines() if f"{command} train: {unit}" in line] == \
        [f" {unit} {i}/{steps}" for i in range(1, steps + 1)]
    assert main([command, *train, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_embed_neighbours_json(tmp_path, capsys):
    emb = tmp_path / "e.txt"
    emb.write_text("3 2\ncat 1 0\ndog 0.9 0.1\ncar 0 1\n")
    assert main(["embed", "neighbours", str(emb), "cat", "-n", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [w for w, _ in result["neighbours"]["cat"]] == ["dog", "car"]
    assert result["neighbours"]["cat"][0][1] == pytest.approx(0.9 / np.hypot(0.9, 0.1))
    assert result["missing"] == []


def test_corpus_stats_takes_several_files(corpora_dir, capsys):
    files = [str(corpora_dir / "ewt-sample.conllu"), str(corpora_dir / "ewt-sample-dev.conllu")]
    assert main(["corpus", "stats", *files, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["file"] for r in rows] == files
    assert [r["n_sequences"] for r in rows] == [len(read_conllu(f)) for f in files]


@pytest.mark.parametrize("weight, warned", [(0.5, True), (0.0, True), (1.0, False)])
def test_mixture_k_at_the_smallest_end_is_warned_unless_unmixed(corpora_dir, weight, warned):
    from dataclasses import replace

    from seqspectral.lm import train_lm
    from seqspectral.selection import SelectionResult

    lm = train_lm(read_corpus(corpora_dir / "ewt-sample-dev.conllu"), "unigram")
    table = [{"mixture_k": k, "model_weight": weight, "score": -float(k)} for k in (0.001, 0.01, 0.1)]
    lm = replace(lm, selection=SelectionResult("dev", {"mixture_k": 0.001, "model_weight": weight}, table,
                                               ["mixture_k"]))
    said = [w for w in lm.summary()["warnings"] if "mixed-in n-gram chose 0.001, the smallest" in w]
    assert bool(said) == warned


PTB = ("# sent_id = 1\n1\tIt\t_\tPRP\tPRP\t_\t2\t_\t_\t_\n2\trains\t_\tVBZ\tVBZ\t_\t0\t_\t_\t_\n"
       "3\t,\t_\t,\t,\t_\t2\t_\t_\t_\n4\tyes\t_\tUH\tUH\t_\t2\t_\t_\t_\n5\t.\t_\t.\t.\t_\t2\t_\t_\t_\n\n")


def test_no_punct_on_conllu_without_ud_tags_goes_by_the_form(tmp_path, capsys):
    """A CoNLL-U file with PTB tags in UPOS (the WSJ sample) has no PUNCT: --no-punct leaves out
    the words made of punctuation characters, and says so; no DEPREL, no per-relation table."""
    gold, pred = tmp_path / "gold.conllu", tmp_path / "pred.conllu"
    gold.write_text(PTB)
    pred.write_text(PTB.replace("3\t,\t_\t,\t,\t_\t2", "3\t,\t_\t,\t,\t_\t4").replace("4\tyes\t_\tUH\tUH\t_\t2",
                                                                                     "4\tyes\t_\tUH\tUH\t_\t1"))
    assert main(["evaluate", "parse", str(gold), str(pred), "--no-punct", "--json"]) == 0
    captured = capsys.readouterr()
    scores = json.loads(captured.out)
    assert scores["n_words"] == 3 and scores["uas"] == pytest.approx(200 / 3)  # ',' and '.' left out; 'yes' wrong
    assert "no UPOS PUNCT" in captured.err
    assert main(["evaluate", "parse", str(gold), str(pred)]) == 0
    out = capsys.readouterr().out
    assert "n_words           5" in out and "per gold relation" not in out


def test_evaluate_tag_prints_accuracy_per_gold_tag(tmp_path, capsys):
    gold, pred = tmp_path / "gold.conllu", tmp_path / "pred.conllu"
    gold.write_text(PTB)
    pred.write_text(PTB.replace("\tyes\t_\tUH\tUH", "\tyes\t_\tRB\tUH"))
    assert main(["evaluate", "tag", str(gold), str(pred)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["accuracy", "80.00"]
    assert "accuracy per gold UPOS tag (n, accuracy):" in lines
    assert ["UH", "1", "0.00"] in [line.split() for line in lines] and ["PRP", "1", "100.00"] in [line.split() for line in lines]


def test_input_errors_name_the_input(tmp_path, capsys, monkeypatch):
    """A directory is refused as such; standard input is <stdin> in every message; an error in
    show's input names the input (not a missing --gold)."""
    bad = PTB.replace("\t,\t_\t,\t,\t_\t2\t", "\t,\t_\t,\t,\t_\tx\t")
    gold = tmp_path / "gold.conllu"
    gold.write_text(PTB)
    assert main(["show", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"seqspectral: error: {tmp_path}: a directory; give a treebank file"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bad.encode())))
    assert main(["evaluate", "parse", str(gold), "-"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == "seqspectral: error: <stdin>:4: non-integer head 'x'"
    (tmp_path / "bad.conllu").write_text(bad)
    assert main(["show", str(tmp_path / "bad.conllu")]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"seqspectral: error: {tmp_path / 'bad.conllu'}:4: non-integer head 'x'"


def test_rerank_run_reads_and_writes_the_builds_encoding(corpora_dir, tmp_path, capsys):
    """A build from a Latin-1 CoNLL-X treebank reads new Latin-1 input without --encoding and
    writes it back in Latin-1 (every column but HEAD and DEPREL as it came)."""
    blocks = (corpora_dir / "ewt-sample.conllu").read_text(encoding="utf-8").split("\n\n")[:40]
    rows = [[line.split("\t") for line in b.splitlines() if line and not line.startswith("#")] for b in blocks]
    conllx = "".join("".join("\t".join([r[0], r[1] + ("ñ" if r[0] == "1" else "")] + r[2:8] + ["_", "_"]) + "\n"
                             for r in sentence if r[0].isdigit()) + "\n" for sentence in rows)
    train = tmp_path / "train.conllx"
    train.write_bytes(conllx.encode("latin-1"))
    build = tmp_path / "build"
    assert main(["rerank", "build", str(train), "--dev", str(train), "--encoding", "latin-1", "-k", "3", "--folds", "2",
                 "--epochs", "1", "--field", "none", "-o", str(build), "--quiet"]) == 0
    out = tmp_path / "out.conllx"
    assert main(["rerank", "run", str(build), str(train), "-o", str(out), "--quiet"]) == 0
    written = out.read_bytes().decode("latin-1").splitlines()
    given = conllx.splitlines()
    assert len(written) == len(given) and written[0].split("\t")[1].endswith("ñ")
    assert [w.split("\t")[:6] + w.split("\t")[8:] for w in written] == [g.split("\t")[:6] + g.split("\t")[8:]
                                                                         for g in given]
