"""`seqspectral rerank build / run` (issue 25 item 4) on a slice of the bundled sample: the stages,
resuming, fold-wise tree models (item 3), the direction features, the run step on untagged input."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.cli.main import main
from seqspectral.corpus import (Corpus, Reading, corpus_from_sentences, read_conllu, read_nbest, write_conllu,
                                write_treebank)
from seqspectral.reranking import CorpusScorer
from seqspectral.workflows import BuildOptions, MissingColumnError, Pipeline, build
from seqspectral.workflows import folds, manifest
from seqspectral.workflows import rerank_build as b
from seqspectral.workflows.nbest_features import jackknifed_features
from seqspectral.reranking.spectral_features import DirectionScorers
from tests.workflows.lines import Lines

SMALL = dict(k=5, folds=2, parser_epochs=2, tagger_epochs=2, reranker_epochs=2, parser_hash_bits=16)


@pytest.fixture(scope="module")
def files(tmp_path_factory, corpora_dir):
    root = tmp_path_factory.mktemp("rb")
    train, dev = read_conllu(corpora_dir / "ewt-sample.conllu")[:80], read_conllu(corpora_dir / "ewt-sample-dev.conllu")[:25]
    write_conllu(root / "train.conllu", train)
    write_conllu(root / "dev.conllu", dev)
    return root, train, dev


@pytest.fixture(scope="module")
def built(files):
    root, _, _ = files
    report = build(root / "build", root / "train.conllu", root / "dev.conllu", BuildOptions(**SMALL))
    return root / "build", report


def test_report_has_every_held_out_figure_and_stage(built):
    directory, report = built
    assert json.loads((directory / b.REPORT).read_text()) == json.loads(json.dumps(report))
    for key in ("tagger_dev_accuracy", "parser_dev", "dev_oracle_uas", "reranked_dev", "reranker_chosen"):
        assert key in report
    assert report["dev_oracle_uas"] >= report["parser_dev"]["uas"]
    assert set(report["stages"]) == {"tagger-upos", "tagger-xpos", "tagger-feats", "tagger-lemma", "parser",
                                     "nbest-train-fold1", "nbest-train-fold2", "labeler",
                                     "nbest-dev", "tree-fold1", "tree-fold2", "tree", "reranker"}
    assert report["parser_tag_columns"] == ["upos", "xpos", "feats", "lemma"]


def test_the_builds_labeler_learns_from_the_gold_and_the_jackknifed_trees_and_labels_its_trees(files, built):
    """labeler.npz is the parser's labeler (its parameters) trained on train's gold trees and
    the first tree of every jackknifed list; the pipeline labels with it."""
    _, train, dev = files
    directory, _ = built
    parser, labeler = (serialize.load(directory / f"{n}.npz") for n in ("parser", "labeler"))
    trees = [t for i, (a, z) in enumerate(folds.fold_blocks(len(train), 2))
             for t in folds.load_trees(directory / f"nbest-train-fold{i + 1}.npz", train[a:z]).chosen([0] * (z - a))]
    columns = {p: getattr(parser.labeler_, p) for p in ("use_lemma", "use_xpos", "use_feats")}
    reference = type(labeler)(**columns).fit(train, trees=trees)
    np.testing.assert_array_equal(labeler.weights_, reference.weights_)
    pipeline = Pipeline.load(directory)
    heads = [s.heads for s in dev]
    assert [s.deprels for s in pipeline.parser.with_trees(dev, heads)] == labeler.predict(dev)


def test_finished_stages_are_kept_and_a_changed_option_redoes_only_what_depends_on_it(files, built, capsys):
    root, _, _ = files
    directory, _ = built
    before = json.loads((directory / manifest.MANIFEST).read_text())["stages"]
    shown = Lines()
    build(directory, root / "train.conllu", root / "dev.conllu", BuildOptions(**SMALL), progress=True, stream=shown)
    assert all("kept" in line for line in shown.lines) and len(shown.lines) == len(before)
    shown = Lines()
    build(directory, root / "train.conllu", root / "dev.conllu", BuildOptions(**{**SMALL, "reranker_epochs": 3}),
            progress=True, stream=shown)
    redone = [line for line in shown.lines if "kept" not in line]
    # off a terminal a redone stage says when it starts, then its line when it has finished
    assert redone[0] == "seqspectral: rerank build: reranker: started"
    assert len(redone) == 2 and redone[1].startswith("seqspectral: rerank build: reranker:") and " s, " in redone[1]
    build(directory, root / "train.conllu", root / "dev.conllu", BuildOptions(**SMALL))  # back as it was


def test_each_fold_is_scored_by_a_tree_model_trained_without_it(files, built):
    _, train, _ = files
    directory, _ = built
    o = BuildOptions(**SMALL)
    (a1, b1), (a2, b2) = folds.fold_blocks(len(train), 2)
    trees = [folds.load_trees(directory / f"nbest-train-fold{i}.npz", train[a:z]) for i, (a, z) in
             enumerate([(a1, b1), (a2, b2)], 1)]
    models = [serialize.load(directory / f"tree-fold{i}.npz") for i in (1, 2)]
    features = jackknifed_features(trees, models, o)
    column = features.dense_names.index("tree:log_prob")
    # an independent fit on the other fold only gives the same scores for fold 1
    other = b.fit_tree_model(train[a2:b2], "upos")

    words = corpus_from_sentences(trees[0].sentences, field="upos")
    corpus = Corpus(trees[0].tile(words.symbols, words.offsets), trees[0].tree_offsets, words.vocabulary,
                    trees[0].heads)
    n1 = len(trees[0].scores)
    np.testing.assert_allclose(features.dense[:n1, column], other.log_probs(corpus))
    full = serialize.load(directory / "tree.npz")
    assert not np.allclose(features.dense[:n1, column], full.log_probs(corpus))


def test_direction_features_sum_to_the_global_log_probability(files, built):
    _, train, _ = files
    directory, _ = built
    model = serialize.load(directory / "tree.npz")
    model.reading_ = Reading(field="upos")
    trees = folds.load_trees(directory / "nbest-train-fold1.npz", train[:40])
    sides = DirectionScorers(model).by_side(trees)

    np.testing.assert_allclose(sides.sum(axis=1), CorpusScorer(model, "g").tree_log_probs(trees), rtol=1e-10)
    assert np.all(sides[:, 2] < 0) and np.any(sides[:, 0] != 0) and np.any(sides[:, 1] != 0)


def test_run_tags_what_is_untagged_and_reranks(files, built):
    _, _, dev = files
    directory, _ = built
    untagged = [replace(s, lemmas=["_"] * len(s), upos=["_"] * len(s), xpos=["_"] * len(s), feats=None,
                        heads=np.zeros(len(s))) for s in dev]
    pipeline = Pipeline.load(directory)
    # a gold-tags build's parser reads FEATS and LEMMA: its features tagger and lemmatiser fill them
    out, columns = pipeline.run_with_columns(untagged)
    assert columns == {"given": [], "predicted": ["upos", "xpos", "feats", "lemma"], "missing": []}
    assert all(s.feats is not None and all(lemma != "_" for lemma in s.lemmas) for s in out)
    # a column the parser reads that nothing predicts is refused, naming it
    del pipeline.taggers["lemma"]
    with pytest.raises(MissingColumnError, match="no LEMMA values"):
        pipeline.run(untagged)
    given = [replace(u, feats=s.feats, lemmas=s.lemmas) for u, s in zip(untagged, dev)]
    out, columns = pipeline.run_with_columns(given)
    assert columns == {"given": ["feats", "lemma"], "predicted": ["upos", "xpos"], "missing": []}
    assert [s.forms for s in out] == [s.forms for s in dev]
    assert all(np.sum(s.heads == 0) >= 1 and all(t != "_" for t in s.upos) for s in out)
    lists = pipeline.run(dev, k=3)
    assert all(1 <= len(x) <= 3 for x in lists)


def test_run_scores_the_tree_model_only_when_the_reranker_kept_its_features(files, built):
    _, _, dev = files
    directory, _ = built
    expected = Pipeline.load(directory).run(dev)

    class Unusable:
        def __getattr__(self, name):
            raise AssertionError(f"the tree model was used ({name})")

    built_ = Pipeline.load(directory)
    built_.tree_model = Unusable()
    if built_.reranker.dropped_names_:  # the held-out choice dropped the tree features: nothing to score
        got = built_.run(dev)
        assert [list(s.heads) for s in got] == [list(s.heads) for s in expected]
    else:
        with pytest.raises(AssertionError, match="the tree model was used"):
            built_.run(dev)


def test_cli_build_and_run(files, tmp_path, capsys):
    root, train, dev = files
    text = tmp_path / "unlabelled.txt"  # unlabelled text for the word clusters
    text.write_text("".join(" ".join(s.forms) + "\n" for s in train + dev))
    command = ["rerank", "build", str(root / "train.conllu"), "--dev", str(root / "dev.conllu"), "-o",
               str(tmp_path / "d"), "-k", "3", "--folds", "2", "--tags", "predicted", "--spectral", "direction",
               "--epochs", "2", "--tag-folds", "2", "--hash-bits", "16", "--clusters-from", str(text), "--quiet"]
    status = main(command + ["--json"])
    assert status == 0
    report = json.loads(capsys.readouterr().out)
    written = (tmp_path / "d" / manifest.MANIFEST).read_bytes()  # rewritten by every stage that is computed
    again = main(command + ["--json"])  # the same command into the same DIR resumes: every stage kept
    assert again == 0 and (tmp_path / "d" / manifest.MANIFEST).read_bytes() == written
    # and reports what the kept stages chose on dev (their compute did not run this time)
    assert json.loads(capsys.readouterr().out) == report
    for choice in ("parser_dev_las", "labeler_dev_las", "feats_unit_dev", "feats_relations"):
        assert choice in report
    units = report["feats_unit_dev"]
    assert units["chosen"] == max(("bundle", "feature"), key=lambda u: (units[u]["ufeats"], units[u]["sets"]))
    assert serialize.load(tmp_path / "d" / "tagger-feats.npz", "features_tagger").unit == units["chosen"]
    relations = report["feats_relations"]
    assert relations["min_count"] == max(map(int, relations["dev_feats_accuracy"]),
                                         key=lambda m: (relations["dev_feats_accuracy"][str(m)], -m))
    # the lemmatiser of new text: refitted on train with its gold and its jackknifed tags (gold lemmas both
    # times), kept if its dev Lemmas beat the gold-trained one's; the pipeline lemmatises with it
    lemmas = report["lemmatiser_dev_lemmas"]
    gold_trained = serialize.load(tmp_path / "d" / "tagger-lemma.npz", "lemmatiser")
    jackknifed = read_conllu(tmp_path / "d" / "train.tagged.conllu")
    refit = type(gold_trained)(**gold_trained.get_params(deep=False)).fit(
        train + [replace(s, lemmas=g.lemmas) for s, g in zip(jackknifed, train)], dev=dev)
    expected = refit if lemmas["gold and jackknifed train"] > lemmas["gold train"] else gold_trained
    assert refit.predict(jackknifed) != gold_trained.predict(jackknifed)  # so the choice below is seen
    kept = serialize.load(tmp_path / "d" / "lemmatiser.npz", "lemmatiser")
    assert kept.predict(jackknifed) == expected.predict(jackknifed)
    assert Pipeline.load(tmp_path / "d").taggers["lemma"].predict(jackknifed) == expected.predict(jackknifed)
    (tmp_path / "f").write_text("")
    assert main(["rerank", "build", str(root / "train.conllu"), "-o", str(tmp_path / "f"), "--quiet"]) == 2
    assert "f: exists and is not a directory" in capsys.readouterr().err
    assert {report["options"][f"{part}_epochs"] for part in ("parser", "tagger", "reranker")} == {2}
    # the arcs read the predicted UPOS and XPOS, then FEATS / LEMMA and the labeler's too only if dev LAS gains
    assert report["parser_tag_columns"][:2] == ["upos", "xpos"] and "upos+xpos" in report["parser_dev_las"]
    assert set(report["parser_dev_las"]) <= {"upos+xpos", "upos+xpos+feats", "upos+xpos+lemma", "upos+xpos+feats+lemma"}
    # what is kept is the best on dev of each choice, and the parser reads the union of the two
    arcs, labels = (max(report[k], key=report[k].get).split("+") for k in ("parser_dev_las", "labeler_dev_las"))
    assert set(report["parser_tag_columns"]) == set(arcs) | set(labels)
    assert report["options"]["tag_folds"] == 2 and report["clusters"]["from"] == [str(text)]
    # the default order 2: the column tries first order, the parser kept second order (pruned), its folds too
    parser = serialize.load(tmp_path / "d" / "parser.npz", "dependency_parser")
    assert report["options"]["order"] == 2 and parser.order == 2 and parser.pruner_ is not None
    assert 0 < report["second_order_dev_las"] <= 100
    # the clusters travel inside the taggers' and the parser's files: the run step needs nothing else
    clusters = serialize.load(tmp_path / "d" / "clusters.npz", "word_clusters")
    for name, kind in (("parser", "dependency_parser"), ("tagger-upos", "tagger"), ("tagger-xpos", "tagger")):
        assert serialize.load(tmp_path / "d" / f"{name}.npz", kind).clusters.words_ == clusters.words_
    assert main(["rerank", "build", str(root / "train.conllu"), "-o", str(tmp_path / "e"), "--clusters-from",
                 str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err
    offered = serialize.load(tmp_path / "d" / "reranker.npz", "reranker")  # kept or dropped by the held-out choice
    assert "tree:left" in offered.dense_names_ + offered.dropped_names_ and report["reranker_features"] == \
        offered.dense_names_
    # the parser reads what the dev choice kept; one that reads no LEMMA parses the same with or without one
    from seqspectral.workflows.pipeline import input_columns

    built = Pipeline.load(tmp_path / "d")
    assert input_columns(built.parser) == report["parser_tag_columns"] and built.parser.hash_bits == 16
    words = [replace(s, lemmas=["_"] * len(s), upos=["_"] * len(s), xpos=["_"] * len(s), feats=None) for s in dev]
    lemmas = [replace(w, lemmas=s.lemmas) for w, s in zip(words, dev)]
    plain, with_lemmas = built.run(words), built.run(lemmas)
    if "lemma" not in report["parser_tag_columns"]:
        assert [(list(p.heads), p.deprels) for p in plain] == [(list(q.heads), q.deprels) for q in with_lemmas]
    # the pipeline object and rerank run give the same file, from raw text and from CoNLL-U
    text = tmp_path / "dev.txt"
    text.write_text("\n\n".join(s.metadata.get("text", " ".join(s.forms)) for s in dev) + "\n")
    for given in (root / "dev.conllu", text):
        assert main(["rerank", "run", str(tmp_path / "d"), str(given), "-o", str(tmp_path / "cli.conllu"),
                     "--quiet"]) == 0
        write_treebank(tmp_path / "python.conllu", built.run_file(given))
        assert (tmp_path / "python.conllu").read_bytes() == (tmp_path / "cli.conllu").read_bytes()
    write_treebank(tmp_path / "python.conllu", built.run_text(text.read_text()))  # the text itself, not its file
    assert (tmp_path / "python.conllu").read_bytes() == (tmp_path / "cli.conllu").read_bytes()
    # one model file: a parser given untagged words names the columns it lacks; a tagger tags them
    lacking = ", ".join(c.upper() for c in report["parser_tag_columns"])
    with pytest.raises(MissingColumnError, match=f"no {lacking} values"):
        Pipeline.load(tmp_path / "d" / "parser.npz").run(words)
    tagged = Pipeline.load(tmp_path / "d" / "tagger-upos.npz").run(words)
    assert all(t != "_" for s in tagged for t in s.upos)
    parsed = Pipeline.load(tmp_path / "d" / "parser.npz").run(built.tag(words)[0])
    assert [list(s.heads) for s in parsed] == [list(s.heads) for s in built.parser.parse(built.tag(words)[0])]
    status = main(["rerank", "run", str(tmp_path / "d"), str(root / "dev.conllu"), "-o", str(tmp_path / "o.conllu"),
                   "-k", "2"])
    assert status == 0 and "tag columns read by the parser — given: UPOS, XPOS" in capsys.readouterr().err
    assert len(read_nbest(tmp_path / "o.conllu")) == len(dev)
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tx\n\n")
    assert main(["rerank", "run", str(tmp_path / "d"), str(bad), "-o", str(tmp_path / "o2.conllu")]) == 2
    assert "bad.conllu" in capsys.readouterr().err
    assert main(["rerank", "run", str(tmp_path), str(bad), "-o", str(tmp_path / "o2.conllu")]) == 2


def test_a_builds_parser_file_remembers_its_reading_and_refuses_untagged_sentences(files, built):
    """A build's parser.npz loaded alone (serialize.load) reads as the treebank was read and
    never parses untagged sentences silently (it gave UAS 31 before)."""
    _, _, dev = files
    directory, _ = built
    parser = serialize.load(directory / "parser.npz")
    assert parser.reading_ == Reading(format="conllu") and parser.input_profile_ is not None
    untagged = [replace(s, upos=["_"] * len(s), xpos=["_"] * len(s)) for s in dev]
    with pytest.raises(MissingColumnError, match="no UPOS, XPOS values, which the parser was trained to read"):
        parser.parse(untagged)
    with pytest.raises(MissingColumnError, match="no UPOS, XPOS values"):
        parser.kbest_trees(untagged, 2)
    assert len(parser.parse(dev)) == len(dev)


def test_rerank_run_refuses_a_damaged_stage_file_naming_it(built, tmp_path, capsys, files):
    import shutil

    root, _, _ = files
    directory = tmp_path / "copy"
    shutil.copytree(built[0], directory)
    data = (directory / "parser.npz").read_bytes()
    (directory / "parser.npz").write_bytes(data[: len(data) // 2])  # cut in half
    assert main(["rerank", "run", str(directory), str(root / "dev.conllu"), "-o", str(tmp_path / "o.conllu")]) == 2
    err = capsys.readouterr().err
    assert f"{directory / 'parser.npz'}: damaged (its bytes are not those the build recorded)" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "o.conllu").exists()


def test_reranker_runs_out_of_bounds_names_the_option():
    from seqspectral.workflows.options import OptionError

    BuildOptions(reranker_runs=10).check(clusters_exist=False)
    for bad in (0, 11, 2.0, True):
        with pytest.raises(OptionError, match=f"--reranker-runs: expected perceptrons averaged in the reranker "
                                              f"from 1 to 10, not {bad!r}"):
            BuildOptions(reranker_runs=bad).check(clusters_exist=False)
