"""Non-projective dependency parsing (issue 41): projective and non-projective decoders side by side.

Treebanks: UD treebanks where crossing arcs are common, from GitHub snapshots of their
repositories taken with the project's ``fetch`` tool (not a package registry; ``--ud-dir``, one
folder per treebank with its LICENSE.txt and SOURCE; absent ones are skipped): Ancient Greek
PROIEL (dev then test concatenated in file order, 80/10/10: the snapshot has no train file),
Hungarian Szeged (the official split) and Basque BDT (dev + test, 80/10/10; first order), all
CC BY-NC-SA 3.0, and on request Dutch Alpino and LassySmall (CC BY-SA 4.0); the Turkish Web
Treebank (PyPI ``turkish-treebanks`` 1.0.0, Google, Apache-2.0: ``data/web.conllu`` then
``data/wiki.conllu`` concatenated in file order, the first 80 % of the sentences train, the next
10 % dev, the rest test); UD English-EWT (train/dev/test);
the NLTK WSJ dependency sample as the Latin-1 CoNLL-X files with several root words that
``corpora/make_wsj_splits.py`` writes. On each: first- and second-order parsers with the
projective decoder (Eisner) and the non-projective one (maximum spanning trees; second order
rearranged; EWT, WSJ and the treebanks near ``auto``'s threshold first order only, see
``--first-order-only``), every other setting the
parser's default (all tag columns, epochs chosen on dev out of 10 for first order, 8 for
second); what ``decoder="auto"`` picks and the share of
non-projective training arcs; test UAS/LAS (every word) on all test sentences and on those
whose gold tree is non-projective; 50-best oracle UAS; CPU and wall seconds of training,
1-best and 50-best parsing of test (sentences in parallel on the machine's cores). EWT:
what the auto decoder picks. With ``--rerank``: ``rerank build`` (``--decoder auto`` where auto
picks non-projective, else ``nonprojective``: jackknifed 50-best lists, spectral tree model,
reranker) and ``rerank run`` on test, reranked against its own parser's 1-best.

Also per treebank: the test set's non-projective gold arcs and the best UAS any projective
tree reaches (how much a non-projective decoder can gain at most), and each first-order
parser's weights decoded both ways (UAS, 50-best oracle, share of crossing candidates).

Writes ``evaluation/results/nonprojective.md``; models and measurements go to ``--workdir``
(reused, so a stopped run resumes; each measurement records when and at which commit it was
taken, and the results file says it under each table). Training and parsing times of the main run are taken as
they come (read the CPU seconds on a shared machine). The EWT timing table comes from
``--timing``, meant to run whole under the machine's timing lock (a lock the scheduler sees:
its processes get the CPU first): it trains both first-order EWT parsers (the main run then
reuses them) and times 1-best and 50-best parsing of EWT test, best of ``--repeats``.
Run from the repository root::

    flock /work/timing.lock python -m evaluation nonprojective --workdir /tmp/nonproj --timing
    python -m evaluation nonprojective --workdir /tmp/nonproj --rerank --seeds 5
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from .common import (EWT, NLTK_DATA, RESULTS, SEQSPECTRAL, describe, log, markdown_table, require_data, timed,
                     write_results)

OUT = RESULTS / "nonprojective.md"
TURKISH = Path("/work/data/turkish-treebanks/data")
UD = Path("/work/data/nonproj-ud")
# name: (folder under --ud-dir, file prefix, language and treebank, licence as its LICENSE.txt gives it)
UD_TREEBANKS = {"grc-proiel": ("Ancient_Greek-PROIEL", "grc_proiel", "Ancient Greek PROIEL", "CC BY-NC-SA 3.0"),
                "hu-szeged": ("Hungarian-Szeged", "hu_szeged", "Hungarian Szeged", "CC BY-NC-SA 3.0"),
                "eu-bdt": ("Basque-BDT", "eu_bdt", "Basque BDT", "CC BY-NC-SA 3.0"),
                "nl-alpino": ("Dutch-Alpino", "nl_alpino", "Dutch Alpino", "CC BY-SA 4.0"),
                "nl-lassysmall": ("Dutch-LassySmall", "nl_lassysmall", "Dutch LassySmall", "CC BY-SA 4.0")}
EPOCHS = {1: 10, 2: 8}
K = 50
DECODERS = ("projective", "nonprojective")
TREEBANKS = ("grc-proiel", "hu-szeged", "eu-bdt", "turkish", "ewt", "wsj-roots", "nl-alpino", "nl-lassysmall")
DEFAULT_TREEBANKS = TREEBANKS[:6]
RERANKED = ("grc-proiel", "hu-szeged", "turkish")


def _revision() -> str:
    """The checkout's commit, "-dirty" when a tracked file other than the results tables differs."""
    def git(*argv):
        return subprocess.run(["git", *argv], capture_output=True, text=True, cwd=RESULTS.parents[1]).stdout.strip()

    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)evaluation/results")
    return (git("rev-parse", "--short", "HEAD") or "an unknown commit") + ("-dirty" if changed else "")


REVISION = _revision()


def recorded(rows) -> str:
    """When and at which commit ``rows`` (measurements of the workdir) were taken."""
    stamps = sorted({r.get("recorded", "in an earlier session (when and at which commit not recorded)") for r in rows})
    return stamps[0] if len(stamps) == 1 else f"{stamps[0]} to {stamps[-1]}"


class Work:
    """Models (``.npz``) and measurements (``results.json``) of the run, kept in ``workdir``."""

    def __init__(self, workdir: Path):
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = workdir / "results.json"
        self.results = json.loads(self.path.read_text()) if self.path.exists() else {}

    def record(self, key: str, value) -> None:
        """Keep ``value`` under ``key`` (merged into the file as it is now: runs over different
        treebanks can share a workdir), with when and at which commit it was measured."""
        from seqspectral.io import atomic_write_text

        if isinstance(value, dict):
            value = {**value, "recorded": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC at "
                                          f"{REVISION}"}
        on_disk = json.loads(self.path.read_text()) if self.path.exists() else {}
        self.results = {**self.results, **on_disk, key: value}  # what another run recorded since wins
        atomic_write_text(self.path, json.dumps({**on_disk, key: value}, indent=1))

    def model(self, name: str, build):
        from seqspectral import serialize

        path = self.dir / f"{name}.npz"
        if path.exists():
            return serialize.load(path)
        model, t = timed(build)
        self.record(f"{name}:fit", {"cpu": t.cpu, "wall": t.wall, "load": list(os.getloadavg())})
        serialize.save(path, model)
        return model


# -- treebanks -----------------------------------------------------------------------------
def split_80_10_10(paths) -> tuple[list, list, list]:
    """The sentences of ``paths`` concatenated in file order: the first 80 % train, the next 10 %
    dev, the rest test."""
    from seqspectral.corpus import read_conllu

    sentences = [s for p in paths for s in read_conllu(p)]
    a, b = len(sentences) * 8 // 10, len(sentences) * 9 // 10
    return sentences[:a], sentences[a:b], sentences[b:]


def turkish(directory: Path) -> tuple[list, list, list]:
    """web then wiki, in file order, 80/10/10."""
    paths = [directory / "web.conllu", directory / "wiki.conllu"]
    require_data(*paths, hint="pip download --no-deps turkish-treebanks==1.0.0 and unzip the wheel's data/")
    return split_80_10_10(paths)


def ud_paths(ud_dir: Path, name: str) -> dict:
    """The CoNLL-U files of a UD treebank under ``ud_dir`` by part (the parts present)."""
    folder, prefix = UD_TREEBANKS[name][:2]
    paths = {part: ud_dir / folder / f"{prefix}-ud-{part}.conllu" for part in ("train", "dev", "test")}
    return {part: p for part, p in paths.items() if p.exists()}


def ud(ud_dir: Path, name: str) -> tuple[list, list, list]:
    """The official train/dev/test when the snapshot has a train file; otherwise dev then test
    concatenated in file order, 80/10/10 (as for Turkish)."""
    from seqspectral.corpus import read_conllu

    paths = ud_paths(ud_dir, name)
    if "train" in paths:
        return tuple(read_conllu(paths[part]) for part in ("train", "dev", "test"))
    return split_80_10_10([paths["dev"], paths["test"]])


def ud_title(ud_dir: Path, name: str) -> str:
    folder, _, title, licence = UD_TREEBANKS[name]
    commit, _, date = (ud_dir / folder / "SOURCE").read_text().strip().partition(" ")
    split = "official train/dev/test" if "train" in ud_paths(ud_dir, name) else \
        "dev + test in file order, 80/10/10: the snapshot has no train file"
    return (f"UD {title} ({split}; {licence}; UD_{folder} at commit {commit[:10]}, {date}, a GitHub snapshot "
            "taken with the project's `fetch` tool, not from a package registry)")


def ewt() -> tuple[list, list, list]:
    from seqspectral.corpus import read_conllu

    paths = [EWT / f"en_ewt-ud-{part}.conllu" for part in ("train", "dev", "test")]
    require_data(*paths)
    return tuple(read_conllu(p) for p in paths)


def wsj_roots(workdir: Path) -> tuple[list, list, list]:
    """The several-roots Latin-1 CoNLL-X files of ``corpora/make_wsj_splits.py``."""
    from seqspectral.corpus import read_conllx

    zipped = NLTK_DATA / "corpora" / "dependency_treebank.zip"
    require_data(zipped)
    out = workdir / "wsj"
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "wsj-roots.test.conllx").exists():
        subprocess.run([sys.executable, str(Path(__file__).parents[1] / "corpora" / "make_wsj_splits.py"), str(out),
                        str(zipped)], check=True)
    return tuple(read_conllx(out / f"wsj-roots.{part}.conllx", encoding="latin-1")
                 for part in ("train", "dev", "test"))


# -- measurements --------------------------------------------------------------------------
def scores(gold, heads_of, parser):
    """UAS/LAS on every test sentence and on the non-projective ones."""
    from seqspectral.corpus import is_projective
    from seqspectral.parsing import attachment_scores

    pred = parser.with_trees(gold, heads_of)
    crossing = [i for i, s in enumerate(gold) if not is_projective(s.heads)]
    out = {"all": attachment_scores(gold, pred)}
    if crossing:
        out["nonprojective"] = attachment_scores([gold[i] for i in crossing], [pred[i] for i in crossing])
    out["n_nonprojective"] = len(crossing)
    out["pred_nonprojective"] = sum(not is_projective(h) for h in heads_of)
    return out


def oracle(trees, gold, only=None) -> float:
    """UAS of each list's best candidate (over the sentences ``only``, default all)."""
    wrong, n_scored = trees.wrong_heads(gold)
    only = range(len(gold)) if only is None else only
    best = [int(wrong[trees.groups[i]:trees.groups[i + 1]].min()) for i in only]
    return 100.0 * (1 - sum(best) / sum(len(gold[i]) for i in only))


def ceiling(test) -> dict:
    """How much a decoder that reaches crossing arcs can gain at most: the test words, the
    non-projective gold arcs, the gold arcs that cross another (as ``show`` draws them: the
    root attachment not counted), and the best UAS any projective tree reaches (for each sentence
    the projective tree with the most correct heads: Eisner's algorithm over 1 for a gold arc,
    0 otherwise, with the treebank's one root word)."""
    from seqspectral.corpus import is_projective
    from seqspectral.display.svg import crossing_arcs
    from seqspectral.parsing.projectivity import closest_projective_heads, non_projective_arcs

    words = correct = arcs = in_a_crossing = 0
    for s in test:
        n = len(s.heads)
        gold = np.asarray(s.heads, dtype=np.int32)
        words += n
        arcs += non_projective_arcs(gold)
        in_a_crossing += len(crossing_arcs(gold))
        if is_projective(gold):
            correct += n
            continue
        correct += int(np.sum(closest_projective_heads(gold) == gold))
    return {"words": words, "crossing_arcs": arcs, "in_a_crossing": in_a_crossing,
            "projective_ceiling": 100.0 * correct / words}


def cross(work: Work, name: str, test) -> dict:
    """Each first-order parser's weights decoded by each decoder: test UAS/LAS (all, and the
    sentences with crossing gold arcs), 50-best oracle and the share of non-projective trees
    among the 50-best candidates. Separates what the decoder does from what training with it
    does to the weights (the diagonal is the main table's)."""
    from seqspectral import serialize
    from seqspectral.corpus import is_projective

    key = f"{name}:cross"
    if key not in work.results:
        nonprojective = [i for i, s in enumerate(test) if not is_projective(s.heads)]
        out = {}
        for trained in DECODERS:
            parser = serialize.load(work.dir / f"{name}-1-{trained}.npz")
            for decoder in DECODERS:
                parser.decoder_ = decoder
                heads = parser.predict(test)
                trees = parser.kbest_trees(test, K)
                offsets = trees.tree_offsets
                crossing = sum(not is_projective(trees.heads[a:b]) for a, b in zip(offsets[:-1], offsets[1:]))
                out[f"{trained}:{decoder}"] = {"scores": scores(test, heads, parser), "oracle": oracle(trees, test),
                                               "oracle_nonprojective": oracle(trees, test, nonprojective)
                                               if nonprojective else None,
                                               "candidates": len(offsets) - 1, "crossing_candidates": crossing}
        work.record(key, out)
    return work.results[key]


def seed_spread(work: Work, name: str, train, dev, test, n_seeds: int) -> dict:
    """Test UAS/LAS of the first-order parsers trained with ``random_state`` 0 (the main rows)
    to ``n_seeds - 1`` (the order training visits the sentences in; every other setting the
    main rows'): how much of a difference between the decoders is one training run's luck."""
    from seqspectral.parsing import DependencyParser, attachment_scores

    out = {}
    for seed in range(n_seeds):
        for decoder in DECODERS:
            key = f"{name}:1:{decoder}" if seed == 0 else f"{name}:seed{seed}:{decoder}"
            if key not in work.results:
                log(key)
                parser, t = timed(lambda: DependencyParser(1, decoder=decoder, epochs=EPOCHS[1],
                                                           random_state=seed).fit(train, dev=dev))
                s = attachment_scores(test, parser.parse(test))
                work.record(key, {"scores": {"all": {"uas": s["uas"], "las": s["las"]}},
                                  "fit": {"cpu": t.cpu, "wall": t.wall}})
            out[seed, decoder] = work.results[key]["scores"]["all"]
    return out


def seed_table(spread: dict, n_seeds: int) -> list[str]:
    def cell(uas, las):
        return f"{uas:.2f} / {las:.2f}"

    rows = []
    for decoder in DECODERS:
        s = [spread[seed, decoder] for seed in range(n_seeds)]
        rows.append([decoder, *(cell(x["uas"], x["las"]) for x in s),
                     cell(np.mean([x["uas"] for x in s]), np.mean([x["las"] for x in s]))])
    diff = [(spread[seed, "nonprojective"]["uas"] - spread[seed, "projective"]["uas"],
             spread[seed, "nonprojective"]["las"] - spread[seed, "projective"]["las"]) for seed in range(n_seeds)]
    rows.append(["non-projective − projective", *(f"{u:+.2f} / {l:+.2f}" for u, l in diff),
                 f"{np.mean([u for u, _ in diff]):+.2f} / {np.mean([l for _, l in diff]):+.2f}"])
    return markdown_table(["first order, test UAS / LAS", *(f"seed {seed}" for seed in range(n_seeds)), "mean"],
                          rows, "l" + "r" * (n_seeds + 1))


def gains(work: Work, name: str, test) -> dict:
    """Where the first-order non-projective parser's test UAS differs from the projective one's:
    the words each gets right and the other wrong, on the sentences whose gold tree nests and on
    those where it crosses, and on the gold arcs that cross another (as ``show`` draws them);
    also the arcs crossing another that the non-projective parser returns and how many are right."""
    from seqspectral import serialize
    from seqspectral.corpus import is_projective
    from seqspectral.display.svg import crossing_arcs

    key = f"{name}:gains"
    if key not in work.results:
        heads = {d: serialize.load(work.dir / f"{name}-1-{d}.npz").predict(test) for d in DECODERS}
        out = {part: {"words": 0, "both": 0, "projective only": 0, "nonprojective only": 0}
               for part in ("nesting sentences", "crossing sentences", "crossing gold arcs")}
        returned = returned_right = 0
        for i, s in enumerate(test):
            gold = np.asarray(s.heads)
            right = {d: np.asarray(heads[d][i]) == gold for d in DECODERS}
            words = np.ones(len(gold), dtype=bool)
            gold_crossing = np.zeros(len(gold), dtype=bool)
            gold_crossing[list(crossing_arcs(gold))] = True
            parts = [("nesting sentences" if is_projective(gold) else "crossing sentences", words),
                     ("crossing gold arcs", gold_crossing)]
            for part, mask in parts:
                row, p, n = out[part], right["projective"][mask], right["nonprojective"][mask]
                row["words"] += int(mask.sum())
                row["both"] += int(np.sum(p & n))
                row["projective only"] += int(np.sum(p & ~n))
                row["nonprojective only"] += int(np.sum(n & ~p))
            returned_arcs = list(crossing_arcs(heads["nonprojective"][i]))
            returned += len(returned_arcs)
            returned_right += int(right["nonprojective"][returned_arcs].sum())
        work.record(key, {**out, "returned crossing arcs": returned, "returned crossing arcs right": returned_right})
    return work.results[key]


def gains_table(g: dict) -> list[str]:
    parts = ("nesting sentences", "crossing sentences", "crossing gold arcs")
    return markdown_table(["test words", "words", "both right", "projective only right", "non-projective only right",
                           "net (words)"],
                          [[part, g[part]["words"], g[part]["both"], g[part]["projective only"],
                            g[part]["nonprojective only"], f"{g[part]['nonprojective only'] - g[part]['projective only']:+d}"]
                           for part in parts], "lrrrrr") + \
        ["", f"The non-projective parser returns {g['returned crossing arcs']} arcs that cross another; "
             f"{g['returned crossing arcs right']} of them are right "
             f"({100.0 * g['returned crossing arcs right'] / max(g['returned crossing arcs'], 1):.1f} %)."]


def cross_table(rows: dict) -> list[str]:
    body = []
    for pair, r in rows.items():
        trained, decoder = pair.split(":")
        s, np_ = r["scores"]["all"], r["scores"].get("nonprojective", {})
        body.append([trained, decoder, f"{s['uas']:.2f}", f"{s['las']:.2f}", f"{np_['uas']:.2f}" if np_ else "—",
                     f"{np_['las']:.2f}" if np_ else "—", r["scores"]["pred_nonprojective"], f"{r['oracle']:.2f}",
                     f"{r['oracle_nonprojective']:.2f}" if np_ else "—",
                     f"{100.0 * r['crossing_candidates'] / r['candidates']:.1f}"])
    return markdown_table(["weights trained with", "decoded with", "UAS", "LAS", "UAS non-proj.", "LAS non-proj.",
                           "non-proj. trees out", "50-best oracle", "50-best oracle non-proj.",
                           "% non-proj. candidates"], body, "ll" + "r" * 8)


def run_treebank(work: Work, name: str, train, dev, test, orders) -> dict:
    from seqspectral.parsing import DependencyParser

    out = {}
    for order in orders:
        for decoder in DECODERS:
            key = f"{name}:{order}:{decoder}"
            row = work.results.get(key)
            if row is None:  # a row measured already needs no model
                log(key)
                parser = work.model(key.replace(":", "-"), lambda: DependencyParser(
                    order, decoder=decoder, epochs=EPOCHS[order]).fit(train, dev=dev))
                parser.predict(test[:5])  # compiled before timing
                heads, t1 = timed(parser.predict, test)
                row = {"decoder_share": parser.crossing_share_, "single_root": parser.single_root_,
                       "epochs": parser.selection_.chosen["epochs"], "fit": work.results[f"{key.replace(':', '-')}:fit"],
                       "parse": {"cpu": t1.cpu, "wall": t1.wall}, "scores": scores(test, heads, parser)}
                if order == 1:
                    parser.kbest_trees(test[:5], K)
                    trees, tk = timed(parser.kbest_trees, test, K)
                    row["kbest"] = {"cpu": tk.cpu, "wall": tk.wall}
                    row["oracle"] = oracle(trees, test)
                work.record(key, row)
            out[(order, decoder)] = work.results[key]
    return out


def timing(work: Work, name: str, train, dev, test, repeats: int, what: str) -> dict:
    """``--timing``: train both first-order parsers (wall and CPU seconds; ``what="parse"``
    keeps the earlier run's training figures and models), then the best of ``repeats`` wall
    and CPU seconds of parsing ``test`` (1-best with labels, 50-best trees) with each; the
    whole meant to run under the timing lock."""
    from seqspectral import serialize
    from seqspectral.parsing import DependencyParser

    key = f"{name}:timing"
    out = dict(work.results[key]) if what == "parse" else {"train_load": list(os.getloadavg())}
    out.update(parse_load_before=list(os.getloadavg()), repeats=repeats)
    for decoder in DECODERS:
        path = work.dir / f"{name}-1-{decoder}.npz"
        if what == "parse":
            parser = serialize.load(path)
        else:
            parser, t = timed(lambda: DependencyParser(1, decoder=decoder, epochs=EPOCHS[1]).fit(train, dev=dev))
            out[f"{decoder}:train"] = {"wall": t.wall, "cpu": t.cpu}
            if not path.exists():  # the main run's model, trained alike
                serialize.save(path, parser)
                work.record(f"{name}-1-{decoder}:fit", {"cpu": t.cpu, "wall": t.wall, "load": list(os.getloadavg()),
                                                        "locked": True})
        parser.parse(test[:5]), parser.kbest_trees(test[:5], K)  # compiled before timing
        for step, run in (("1-best", lambda: parser.parse(test)), ("50-best", lambda: parser.kbest_trees(test, K))):
            runs = [timed(run)[1] for _ in range(repeats)]
            out[f"{decoder}:{step}"] = {"wall": min(r.wall for r in runs), "cpu": min(r.cpu for r in runs)}
            log(f"{decoder} {step}: {len(test) / out[f'{decoder}:{step}']['wall']:.0f} sentences/s")
    out["parse_load_after"] = list(os.getloadavg())
    work.record(key, out)
    return out


def auto_choice(work: Work, name: str) -> dict:
    """What ``decoder="auto"`` picks from the training share. When it picks projective the
    auto parser is the projective one — the same training, step for step (the test
    ``test_auto_trains_exactly_the_decoder_it_picks``) — so it is not trained again."""
    from seqspectral.parsing.parser import AUTO_CROSSING_SHARE

    share = work.results[f"{name}:1:projective"]["decoder_share"]
    return {"decoder": "nonprojective" if share > AUTO_CROSSING_SHARE else "projective", "share": share}


def rerank(work: Work, name: str, train, dev, test, decoder: str) -> dict:
    """``rerank build --decoder DECODER`` on the treebank's split (gold tags, every other option
    the default: jackknifed 50-best lists, spectral tree models, the reranker, all chosen on
    dev), then on test ``rerank run`` against the build's parser's 1-best (``parse run`` with
    its ``parser.npz``); also the decoder the build's parser chose and the share it read."""
    from seqspectral import serialize
    from seqspectral.corpus import is_projective, read_conllu, write_conllu
    from seqspectral.parsing import attachment_scores

    key = f"{name}:rerank-build"
    if key in work.results:
        return work.results[key]
    d, build = work.dir / name, work.dir / f"{name}-build"
    d.mkdir(exist_ok=True)
    for part, sents in (("train", train), ("dev", dev), ("test", test)):
        write_conllu(d / f"{part}.conllu", sents)

    def run(*argv):
        subprocess.run(SEQSPECTRAL + [str(a) for a in argv] + ["--quiet"], check=True)

    def steps():
        run("rerank", "build", d / "train.conllu", "--dev", d / "dev.conllu", "-o", build, "--decoder", decoder)
        run("rerank", "run", build, d / "test.conllu", "-o", d / "test.reranked.conllu")
        run("parse", "run", build / "parser.npz", d / "test.conllu", "-o", d / "test.parsed.conllu")

    t = timed(steps)[1]
    report = json.loads((build / "report.json").read_text())
    parser = serialize.load(build / "parser.npz")
    chosen = read_conllu(d / "test.reranked.conllu")
    row = {"decoder": decoder, "parser_decoder": parser.decoder_, "parser_share": parser.crossing_share_,
           "parser_test": attachment_scores(test, read_conllu(d / "test.parsed.conllu")),
           "reranked_test": attachment_scores(test, chosen),
           "reranked_crossing": sum(not is_projective(s.heads) for s in chosen),
           "parser_dev": report["parser_dev"], "reranked_dev": report["reranked_dev"],
           "dev_oracle": report["dev_oracle_uas"], "build_cpu": report["total_cpu_s"],
           "cpu_children": t.child_cpu, "wall": t.wall}
    work.record(key, row)
    return work.results[key]


def rerank_text(name: str, r: dict, n_test: int) -> list[str]:
    decoder = r.get("decoder", "nonprojective")  # the first sessions' Turkish build
    chose = f" The build's parser picked {r['parser_decoder']} ({r['parser_share']:.2f} % of the training arcs " \
            "non-projective)." if "parser_decoder" in r else ""
    text = [f"### `rerank build --decoder {decoder}` ({name})", "",
            f"`rerank build train.conllu --dev dev.conllu --decoder {decoder}` (gold tags; 3 jackknifing "
            "folds, 50-best lists, spectral tree models, the reranker), then `rerank run` of the build on test "
            f"against the build's parser (`parse run DIR/parser.npz`).{chose}", ""]
    text += markdown_table(["", "parser 1-best UAS / LAS", "reranked UAS / LAS", "50-best oracle UAS"],
                           [["dev (the build's report)", f"{r['parser_dev']['uas']:.2f} / {r['parser_dev']['las']:.2f}",
                             f"{r['reranked_dev']['uas']:.2f} / {r['reranked_dev']['las']:.2f}", f"{r['dev_oracle']:.2f}"],
                            ["test", f"{r['parser_test']['uas']:.2f} / {r['parser_test']['las']:.2f}",
                             f"{r['reranked_test']['uas']:.2f} / {r['reranked_test']['las']:.2f}", "—"]])
    return text + ["", f"{r['reranked_crossing']} of the {n_test} reranked test trees are non-projective. Build: "
                       f"{r['build_cpu']:.0f} CPU s (its report); all three commands {r['wall']:.0f} s wall, "
                       f"{r['cpu_children']:.0f} CPU s. Measured {recorded([r])}.", ""]


# -- report --------------------------------------------------------------------------------
def table(name: str, rows: dict, n_test: int) -> list[str]:
    lines = []
    header = ["parser", "decoder", "UAS", "LAS", "UAS non-proj.", "LAS non-proj.", "non-proj. trees out",
              "50-best oracle", "epochs", "train CPU s", "train wall s", "1-best sent/s (wall)",
              "1-best sent/CPU-s", "50-best sent/s (wall)", "50-best sent/CPU-s"]
    body = []
    for (order, decoder), r in rows.items():
        s, np_ = r["scores"]["all"], r["scores"].get("nonprojective", {})
        kb = r.get("kbest")
        body.append([f"order {order}", decoder, f"{s['uas']:.2f}", f"{s['las']:.2f}",
                     f"{np_['uas']:.2f}" if np_ else "—", f"{np_['las']:.2f}" if np_ else "—",
                     r["scores"]["pred_nonprojective"], f"{r['oracle']:.2f}" if "oracle" in r else "—", r["epochs"],
                     f"{r['fit']['cpu']:.1f}", f"{r['fit']['wall']:.1f}", f"{n_test / r['parse']['wall']:.0f}",
                     f"{n_test / r['parse']['cpu']:.0f}", f"{n_test / kb['wall']:.0f}" if kb else "—",
                     f"{n_test / kb['cpu']:.0f}" if kb else "—"])
    lines += markdown_table(header, body, "ll" + "r" * (len(header) - 2))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/seqspectral-nonprojective"))
    ap.add_argument("--turkish", type=Path, default=TURKISH, metavar="DIR",
                    help="the turkish-treebanks wheel's data/ folder (web.conllu, wiki.conllu)")
    ap.add_argument("--ud-dir", type=Path, default=UD, metavar="DIR",
                    help="folder of UD treebank folders as GitHub has them (UD_ dropped: Ancient_Greek-PROIEL, "
                         "Hungarian-Szeged, Basque-BDT, Dutch-Alpino, Dutch-LassySmall), each with its .conllu files "
                         "and SOURCE (commit, date); a treebank whose files are absent is skipped, with a message "
                         f"(default {UD})")
    ap.add_argument("--treebanks", default=",".join(DEFAULT_TREEBANKS), metavar="NAMES",
                    help=f"comma-separated, of {', '.join(TREEBANKS)} (default {','.join(DEFAULT_TREEBANKS)})")
    ap.add_argument("--first-order-only", default="ewt,wsj-roots,eu-bdt,nl-alpino,nl-lassysmall", metavar="TREEBANKS",
                    help="treebanks (comma-separated) parsed with first-order parsers only (default "
                         "ewt,wsj-roots,eu-bdt,nl-alpino,nl-lassysmall: no criterion of issue 41 reads their "
                         "second-order parsers, and EWT's take most of a run)")
    ap.add_argument("--rerank", nargs="?", const=",".join(RERANKED), default="", metavar="TREEBANKS",
                    help="also run `rerank build` (decoder auto where it picks non-projective, else "
                         "nonprojective) and `rerank run` on these treebanks' splits (comma-separated; "
                         f"--rerank alone: {','.join(RERANKED)})"),
    ap.add_argument("--seeds", type=int, default=1, metavar="N",
                    help="also train the first-order parsers of the --seeds-on treebanks with random_state 1..N-1 "
                         "and report test UAS/LAS per seed (default 1: the main rows' seed 0 only)")
    ap.add_argument("--seeds-on", default="grc-proiel,hu-szeged,eu-bdt", metavar="TREEBANKS",
                    help="treebanks (comma-separated) --seeds applies to (default grc-proiel,hu-szeged,eu-bdt)")
    ap.add_argument("--timing", nargs="?", const="all", choices=("all", "parse"),
                    help="only train both first-order EWT parsers and time them and their parsing of EWT test "
                         "(run it whole under the timing lock: flock /work/timing.lock python -m evaluation ...); "
                         "--timing parse: only the parsing, with the models of an earlier --timing; the main run "
                         "reports it")
    ap.add_argument("--repeats", type=int, default=3, metavar="R",
                    help="--timing: timed runs of each parsing step, the best kept (default 3)")
    args = ap.parse_args(argv)
    work = Work(args.workdir)
    if args.timing:
        timing(work, "ewt", *ewt(), args.repeats, args.timing)
        return 0
    names = args.treebanks.split(",")
    text = ["# Non-projective dependency parsing (issue 41)", "", describe(__file__, sys.argv[1:]), "",
            "Gold tokenization and tags (UPOS, XPOS, FEATS, LEMMA: the parser's defaults); scores in %, every "
            "word scored (punctuation included), LAS with the parser's label classifier. \"non-proj.\": the test "
            "sentences whose gold tree has crossing arcs; \"non-proj. trees out\": test trees the parser returned "
            "with a crossing arc. Parsing speeds are wall-clock over the machine's cores (sentences in parallel), "
            "sentences per CPU-second count the CPU time of every thread (on a loaded machine the honest "
            "figure: two free cores give up to twice it). Second-order non-projective: projective second-order parse, then "
            "McDonald & Pereira's (2006) greedy rearrangement.", ""]
    loaders = {"turkish": lambda: turkish(args.turkish), "ewt": ewt, "wsj-roots": lambda: wsj_roots(args.workdir),
               **{name: (lambda name=name: ud(args.ud_dir, name)) for name in UD_TREEBANKS}}
    titles = {"turkish": "Turkish Web Treebank (web + wiki in file order, 80/10/10)", "ewt": "UD English-EWT",
              "wsj-roots": "WSJ dependency sample, Latin-1 CoNLL-X with several root words (80/10/10)"}
    from seqspectral.corpus import is_projective
    from seqspectral.parsing.parser import AUTO_CROSSING_SHARE

    absent = [name for name in names if name in UD_TREEBANKS and not {"dev", "test"} <= ud_paths(args.ud_dir, name).keys()]
    if absent == names:  # nothing to measure: the committed table stays
        require_data(*(args.ud_dir / UD_TREEBANKS[name][0] / f"{UD_TREEBANKS[name][1]}-ud-{part}.conllu"
                       for name in absent for part in ("dev", "test")), hint="--ud-dir")
    for name in names:
        if name in UD_TREEBANKS:
            if name in absent:
                folder = args.ud_dir / UD_TREEBANKS[name][0]
                log(f"{name}: skipped, no {UD_TREEBANKS[name][1]}-ud-dev.conllu and -test.conllu in {folder}")
                text += [f"## UD {UD_TREEBANKS[name][2]}", "", f"Skipped: its files are not in `{folder}` (`--ud-dir`).",
                         ""]
                continue
            titles[name] = ud_title(args.ud_dir, name)
        train, dev, test = loaders[name]()
        orders = (1,) if name in args.first_order_only.split(",") else (1, 2)
        rows = run_treebank(work, name, train, dev, test, orders)
        first = next(iter(rows.values()))
        n_np_train = sum(not is_projective(s.heads) for s in train)
        text += [f"## {titles[name]}", "",
                 f"{len(train)} / {len(dev)} / {len(test)} sentences; non-projective: {n_np_train} training "
                 f"sentences, {first['scores']['n_nonprojective']} test sentences; non-projective training arcs "
                 f"{first['decoder_share']:.2f} %; root: {'one word' if first['single_root'] else 'several words'} "
                 f"(detected from train); `decoder=\"auto\"` picks "
                 f"{'non-projective' if first['decoder_share'] > AUTO_CROSSING_SHARE else 'projective'} "
                 f"(threshold {AUTO_CROSSING_SHARE} %).", ""]
        text += table(name, rows, len(test)) + ["", f"Measured {recorded(rows.values())}.", ""]
        c = ceiling(test)
        text += [f"Test: {c['words']} words, {c['crossing_arcs']} of their gold arcs non-projective "
                 f"({100.0 * c['crossing_arcs'] / c['words']:.2f} %; {c['in_a_crossing']} arcs, "
                 f"{100.0 * c['in_a_crossing'] / c['words']:.2f} %, cross another arc); the best projective trees reach "
                 f"{c['projective_ceiling']:.2f} UAS (the most any decoder can gain over a projective one on the "
                 f"whole test is {100.0 - c['projective_ceiling']:.2f} UAS, and only by getting every crossing arc "
                 "right and no other arc wrong).", "",
                 "Each first-order parser's weights decoded both ways (test; \"% non-proj. candidates\": of the "
                 "50-best candidates):", ""]
        decoded = cross(work, name, test)
        text += cross_table({pair: r for pair, r in decoded.items() if pair != "recorded"}) + \
            ["", f"Measured {recorded([decoded])}.", ""]
        if args.seeds > 1 and name in args.seeds_on.split(","):
            spread = seed_spread(work, name, train, dev, test, args.seeds)
            text += [f"The first-order parsers trained with {args.seeds} seeds (`random_state`, the order training "
                     "visits the sentences in; seed 0 is the main table's):", ""] + seed_table(spread, args.seeds) + \
                ["", f"Measured {recorded([work.results[k] for k in work.results if k.startswith(name + ':seed')])}.",
                 ""]
        if (work.dir / f"{name}-1-projective.npz").exists() or f"{name}:gains" in work.results:
            g = gains(work, name, test)
            text += ["Where the first-order parsers differ (test words; \"crossing gold arcs\": words whose gold arc "
                     "crosses another, root attachments not counted):", ""] + gains_table(g) + \
                ["", f"Measured {recorded([g])}.", ""]
        if name == "ewt":
            sp = work.results.get("ewt:timing")
            if sp is None:
                text += ["Timing on EWT: not measured yet (`flock /work/timing.lock python -m evaluation nonprojective "
                         "--workdir DIR --timing`).", ""]
            else:
                loads = [", ".join(f"{x:.1f}" for x in sp[k]) for k in ("train_load", "parse_load_before",
                                                                        "parse_load_after")]
                text += [f"Timing on EWT, each `--timing` run whole under the machine's timing lock: training with "
                         f"dev selection (load average {loads[0]} at the start), and parsing test ({len(test)} "
                         f"sentences; load average {loads[1]} before, {loads[2]} after), first order, best of "
                         f"{sp['repeats']}; wall over {os.cpu_count()} cores, CPU summed over threads; measured "
                         f"{recorded([sp])}:", ""]
                text += markdown_table(
                    ["decoder", "train wall s", "train CPU s", "1-best sent/s (wall)", "1-best sent/CPU-s",
                     "50-best sent/s (wall)", "50-best sent/CPU-s"],
                    [[d, f"{sp[f'{d}:train']['wall']:.1f}", f"{sp[f'{d}:train']['cpu']:.1f}",
                      *(f"{len(test) / sp[f'{d}:{w}'][c]:.0f}" for w in ("1-best", "50-best") for c in ("wall", "cpu"))]
                     for d in DECODERS]) + [""]
            a = auto_choice(work, name)
            text += [f"`decoder=\"auto\"` on EWT picks {a['decoder']} (non-projective training arcs "
                     f"{a['share']:.2f} %); picking projective, it trains and parses exactly as the projective "
                     "parser (the same steps; `test_auto_trains_exactly_the_decoder_it_picks`), so its test UAS is the "
                     "projective row's.", ""]
        if name in args.rerank.split(","):
            nonprojective_by_auto = auto_choice(work, name)["decoder"] == "nonprojective"
            r = rerank(work, name, train, dev, test, "auto" if nonprojective_by_auto else "nonprojective")
            text += rerank_text(name, r, len(test))
    write_results(OUT, "\n".join(text))
    log(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
