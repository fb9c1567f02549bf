"""Constituency parsing on NLTK's WSJ sample: Markovised PCFG, spectral L-PCFG, EM L-PCFG (issue 37).

Split by file: the first 80% of the 199 files train, the next 10% dev, the last 10% test;
every sentence length. The PCFG's Markovisation (v, h) and the spectral grammar's number of
states are chosen on dev; the EM twin gets the spectral grammar's binarisation and as many
states. Reported: test labelled-bracket F1, training CPU seconds, parsing speed on the
threads given (``--jobs``), the pruning's F1 cost on dev (pruned against unpruned, on the
dev sentences of at most ``--unpruned-max-length`` words), the training curve (25%, 50%,
100% of train) and the time ratios when the data doubles.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .common import RESULTS, describe, log, markdown_table, timed, write_results

from seqspectral.constituency import EMLPCFG, MarkovPCFG, SpectralLPCFG
from seqspectral.constituency.estimator import bracket_f1


def _scorer():
    """The toolkit's EVALB (COLLINS.prm, root ignored) when it is there, else plain labelled brackets."""
    try:
        from seqspectral.constituency.evalb import evalb
    except ImportError:
        return bracket_f1, "plain labelled brackets (all labels, all words; seqspectral.constituency.evalb absent)"
    return (lambda gold, test: evalb(gold, test).all.figures()["f1"]), "EVALB's (COLLINS.prm, root ignored)"


def _peers(train, test, args, score, log):
    """Rows for NLTK's ViterbiParser and the Berkeley parser, when evaluation/_constituency_peers.py is there."""
    try:
        from . import _constituency_peers as peers
        from seqspectral.constituency.treebank import write_bracketed
    except ImportError as e:
        return [], [f"peers not run: {e}"]
    rows, notes = [], []
    runs = [peers.nltk_viterbi(train, test, total_seconds=args.nltk_seconds)]
    if args.berkeley_jar.is_file():
        args.berkeley_workdir.mkdir(parents=True, exist_ok=True)
        train_file = args.berkeley_workdir / "train.mrg"
        write_bracketed(train_file, train)
        runs.append(peers.berkeley(train_file, test, jar=args.berkeley_jar, workdir=args.berkeley_workdir))
    else:
        notes.append(f"Berkeley parser not run: no jar at {args.berkeley_jar}")
    for run in runs:
        f1 = peers.scored(test, run).all.figures()["f1"] if run.parsed else float("nan")
        rows.append([run.name, f"{len(run.parsed)} of {len(test)} sentences parsed", f"{f1:.2f}",
                     f"{run.train[1]:.1f}", f"{len(run.parsed) / max(run.parse[0], 1e-9):.1f}", f"{run.parse[1]:.1f}",
                     f"{len(test) - len(run.parsed)} not parsed"])
        notes += run.notes
        log(f"{run.name}: F1 {f1:.2f} on {len(run.parsed)} sentences")
    return rows, notes


def _parse(est, trees, jobs, **kw):
    sentences = [t.leaves() for t in trees]
    out, t = timed(est.parse, sentences, n_jobs=jobs, progress=False, **kw)
    return out, t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation constituency", description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2, help="parsing threads (default 2)")
    ap.add_argument("--max-states", type=int, default=16, help="largest number of latent states tried (default 16)")
    ap.add_argument("--em-iter", type=int, default=200, help="EM iterations at most (default 200)")
    ap.add_argument("--nltk-seconds", type=float, default=600.0,
                    help="CPU seconds NLTK's ViterbiParser gets for the test sentences in all (default 600)")
    ap.add_argument("--berkeley-jar", type=Path, default=Path("/work/data/lpcfg-data/berkeley/BerkeleyParser-1.7.jar"),
                    help="the Berkeley parser's jar (not run when absent)")
    ap.add_argument("--berkeley-workdir", type=Path, default=Path("/work/data/lpcfg-grammar/berkeley"),
                    help="where the Berkeley parser trains (a grammar trained there before is reused)")
    ap.add_argument("--unpruned-max-length", type=int, default=20,
                    help="dev sentences up to this length parsed without pruning (default 20)")
    ap.add_argument("--out", type=Path, default=RESULTS / "constituency.md", help="results file")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    from ._constituency_data import wsj_sample_split

    train, dev, test = (list(part) for part in wsj_sample_split())
    score, scorer_name = _scorer()
    log(f"train {len(train)}, dev {len(dev)}, test {len(test)} trees")
    rows, notes = [], []

    # the Markovised PCFG: v, h on dev
    pcfg_choice = []
    for v, h in ((1, 0), (1, 1), (2, 1)):
        est, t = timed(MarkovPCFG(vertical=v, horizontal=h).fit, train)
        out, _ = _parse(est, dev, args.jobs)
        pcfg_choice.append((score(dev, out), v, h, est, t))
        log(f"PCFG v={v} h={h}: dev F1 {pcfg_choice[-1][0]:.2f}")
    _, v, h, pcfg, pcfg_t = max(pcfg_choice, key=lambda x: x[0])
    notes.append("PCFG dev F1 by (v, h): " + ", ".join(f"({a}, {b}) {f:.2f}" for f, a, b, _, _ in pcfg_choice))

    spectral, spec_t = timed(SpectralLPCFG("auto", max_states=args.max_states).fit, train, dev)
    m = spectral.selection_.chosen["n_states"]
    notes.append("spectral dev F1 by states: " + ", ".join(f"{r['n_states']}: {r['score']:.2f}"
                                                           for r in spectral.selection_.table))
    log(f"spectral: {m} states chosen")
    # the training cost of the chosen grammar alone (without the dev parses of the choice)
    spectral_fixed, spec_fixed_t = timed(SpectralLPCFG(m).fit, train)
    em, em_t = timed(EMLPCFG(m, max_iter=args.em_iter).fit, train)
    log(f"EM: {em.n_iter_} iterations, converged {em.converged_}")

    results = {}
    for name, est, t, note in (("Markovised PCFG", pcfg, pcfg_t, f"v={v}, h={h}"),
                               ("spectral L-PCFG", spectral_fixed, spec_fixed_t,
                                f"v=1, h=0, {m} states (chosen on dev)"),
                               ("EM L-PCFG", em, em_t, f"v=1, h=0, {m} states, {em.n_iter_} iterations")):
        out, pt = _parse(est, test, args.jobs)
        f1 = score(test, out)
        r = est.last_report_
        results[name] = (f1, t, pt)
        rows.append([name, note, f"{f1:.2f}", f"{t.cpu:.1f}", f"{len(test) / pt.wall:.1f}", f"{pt.cpu:.1f}",
                     f"{len(r.no_parse)}"])
        log(f"{name}: test F1 {f1:.2f}, train {t.cpu:.1f} CPU s, {len(test) / pt.wall:.1f} sentences/s")

    # the pruning's cost on dev
    short = [t for t in dev if len(t.leaves()) <= args.unpruned_max_length]
    pruned, pt = _parse(spectral_fixed, short, args.jobs)
    unpruned, ut = _parse(spectral_fixed, short, args.jobs, pruning=False)
    prune_row = [len(short), f"{score(short, pruned):.2f}", f"{score(short, unpruned):.2f}",
                 f"{len(short) / pt.wall:.1f}", f"{len(short) / ut.wall:.1f}"]

    # the training curve, and the time when the data doubles
    curve = []
    for frac in (0.25, 0.5, 1.0):
        part = train[:int(round(frac * len(train)))]
        row = [f"{frac:.0%} ({len(part)} trees)"]
        for make in (lambda: MarkovPCFG(vertical=v, horizontal=h), lambda: SpectralLPCFG(m),
                     lambda: EMLPCFG(m, max_iter=args.em_iter)):
            est, t = timed(make().fit, part)
            out, pt = _parse(est, test, args.jobs)
            row += [f"{score(test, out):.2f}", f"{t.cpu:.1f}"]
        curve.append(row)
        log(f"curve {frac:.0%}: {row}")
    half = test[:len(test) // 2]
    _, half_t = _parse(spectral_fixed, half, args.jobs)
    _, full_t = _parse(spectral_fixed, test, args.jobs)

    peer_rows, peer_notes = _peers(train, test, args, score, log)
    rows += peer_rows
    notes += peer_notes
    spec_f1, em_f1, pcfg_f1 = results["spectral L-PCFG"][0], results["EM L-PCFG"][0], results["Markovised PCFG"][0]
    lines = ["# Constituency parsing: the spectral L-PCFG, its EM twin and the Markovised PCFG", "",
             describe(__file__, sys.argv[1:] if argv is None else argv), "",
             f"NLTK's WSJ sample split by file (80/10/10): {len(train)} train, {len(dev)} dev, {len(test)} test "
             f"trees, every length. F1: {scorer_name}. Parsing on {args.jobs} threads, coarse-to-fine (plain-PCFG "
             "posterior threshold 1e-4), minimum-Bayes-risk trees. Peers: evaluation/_constituency_peers.py (NLTK's "
             "ViterbiParser on gold tags within a time box; the Berkeley parser with its defaults).", "",
             *markdown_table(["grammar", "setting", "test F1", "train CPU s", "test sentences/s", "parse CPU s",
                              "flat fallbacks"], rows), "",
             f"Spectral − PCFG: {spec_f1 - pcfg_f1:+.2f} F1 (target ≥ +4.0); spectral − EM: {spec_f1 - em_f1:+.2f} "
             f"(target ≥ −0.5); EM / spectral training CPU: "
             f"{results['EM L-PCFG'][1].cpu / results['spectral L-PCFG'][1].cpu:.1f}x (target ≥ 10x).", "",
             "Choices on dev and notes: " + "; ".join(notes) + ".", "",
             "## Pruning's cost (dev sentences of at most "
             f"{args.unpruned_max_length} words, spectral grammar)", "",
             *markdown_table(["sentences", "F1 pruned", "F1 unpruned", "sentences/s pruned", "sentences/s unpruned"],
                             [prune_row]), "",
             "## Training curve (test F1, training CPU s)", "",
             *markdown_table(["train", "PCFG F1", "PCFG s", "spectral F1", "spectral s", "EM F1", "EM s"], curve), "",
             f"Parsing time when the test data doubles: {half_t.wall:.1f} s for {len(half)} sentences, "
             f"{full_t.wall:.1f} s for {len(test)} ({full_t.wall / half_t.wall:.2f}x).", ""]
    write_results(args.out, "\n".join(lines))
    log(f"wrote {args.out}")
    return 0
