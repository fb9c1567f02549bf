"""Constituency parsing on NLTK's WSJ sample: Markovised PCFG, spectral L-PCFG, EM L-PCFG (issue 37).

Split by file: the first 80% of the 199 files train, the next 10% dev, the last 10% test;
every sentence length. The PCFG's Markovisation (v, h), the spectral grammar's number of
states and spectrum cutoff, and the EM twin's number of states are chosen on dev (the EM
twin has the spectral grammar's binarisation). Reported: test labelled-bracket F1, training CPU seconds, parsing speed on the
threads given (``--jobs``), the pruning's F1 cost on dev (pruned against unpruned, on the
dev sentences of at most ``--unpruned-max-length`` words), the training curve (25%, 50%,
100% of train, the Berkeley parser's too) and the time ratios when the data doubles.
``--speed`` measures the timings of the issue's targets alone, for the timing lock.
"""

from __future__ import annotations

import argparse
import os
import sys
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
        return [], [f"peers not run: {e}"], None
    rows, notes = [], []
    runs = [peers.nltk_viterbi(train, test, total_seconds=args.nltk_seconds)]
    if args.berkeley_jar.is_file():
        args.berkeley_workdir.mkdir(parents=True, exist_ok=True)
        train_file = args.berkeley_workdir / "train.mrg"
        write_bracketed(train_file, train)
        runs.append(peers.berkeley(train_file, test, jar=args.berkeley_jar, workdir=args.berkeley_workdir))
    else:
        notes.append(f"Berkeley parser not run: no jar at {args.berkeley_jar}")
    found = {}
    for run in runs:
        f1 = peers.scored(test, run).all.figures()["f1"] if run.parsed else float("nan")
        found[run.name.split()[0]] = (f1, run.train[1])
        rows.append([run.name, f"{len(run.parsed)} of {len(test)} sentences parsed", f"{f1:.2f}",
                     f"{run.train[1]:.1f}", f"{len(run.parsed) / max(run.parse[0], 1e-9):.1f}", f"{run.parse[1]:.1f}",
                     f"{len(test) - len(run.parsed)} not parsed"])
        notes += run.notes
        log(f"{run.name}: F1 {f1:.2f} on {len(run.parsed)} sentences")
    return rows, notes, found.get("Berkeley")


def _berkeley_part(part, test, frac, args):
    """(test F1, training CPU s) of the Berkeley parser trained on ``part`` (the curve's
    ``frac`` of train) in its own working directory, or None without the jar."""
    from . import _constituency_peers as peers
    from seqspectral.constituency.treebank import write_bracketed

    workdir = Path(f"{args.berkeley_curve_workdir}-{round(100 * frac)}")
    if not args.berkeley_jar.is_file() or (args.berkeley_curve == "reuse" and not (workdir / "grammar.gr").exists()):
        return None
    workdir.mkdir(parents=True, exist_ok=True)
    train_file = workdir / "train.mrg"
    write_bracketed(train_file, part)
    run = peers.berkeley(train_file, test, jar=args.berkeley_jar, workdir=workdir, train_timeout=5 * 3600)
    return (peers.scored(test, run).all.figures()["f1"] if run.parsed else float("nan")), run.train[1]


def _parse(est, trees, jobs, **kw):
    sentences = [t.leaves() for t in trees]
    out, t = timed(est.parse, sentences, n_jobs=jobs, progress=False, **kw)
    return out, t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation constituency", description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2, help="parsing threads (default 2)")
    ap.add_argument("--max-states", type=int, default=16,
                    help="largest number of latent states the spectral grammar tries (default 16)")
    ap.add_argument("--em-iter", type=int, default=200, help="EM iterations at most (default 200)")
    ap.add_argument("--speed", action="store_true",
                    help="only the timings (run it under the timing lock): training CPU of the spectral grammar and "
                         "of EM with the same states (--states, --cutoff), parsing the test sentences on --jobs "
                         "threads; writes --out (default results/constituency-speed.md)")
    ap.add_argument("--states", type=int, default=16, help="--speed: latent states of both grammars (default 16)")
    ap.add_argument("--cutoff", type=float, default=0.0, help="--speed: the spectral grammar's spectrum cutoff")
    ap.add_argument("--nltk-seconds", type=float, default=600.0,
                    help="CPU seconds NLTK's ViterbiParser gets for the test sentences in all (default 600)")
    ap.add_argument("--berkeley-jar", type=Path, default=Path("/work/data/lpcfg-data/berkeley/BerkeleyParser-1.7.jar"),
                    help="the Berkeley parser's jar (not run when absent)")
    ap.add_argument("--berkeley-workdir", type=Path, default=Path("/work/data/lpcfg-grammar/berkeley"),
                    help="where the Berkeley parser trains (a grammar trained there before is reused)")
    ap.add_argument("--berkeley-curve-workdir", type=Path, default=Path("/work/data/lpcfg-grammar/berkeley"),
                    help="the training curve's Berkeley runs train in this path + -25 and -50 (reused when there)")
    ap.add_argument("--berkeley-curve", choices=("train", "reuse"), default="train",
                    help="the curve's Berkeley runs: train when no grammar is there (waiting for a training under way "
                         "there), or reuse only (none: a dash) (default train)")
    ap.add_argument("--em-max-states", type=int, default=12, help="largest number of EM states tried (default 12)")
    ap.add_argument("--unpruned-max-length", type=int, default=20,
                    help="dev sentences up to this length parsed without pruning (default 20)")
    ap.add_argument("--sample", type=int, default=None, metavar="N",
                    help="only the first N trees of train, dev and test (a quick check of the benchmark itself)")
    ap.add_argument("--out", type=Path, default=None,
                    help="results file (default results/constituency.md, with --speed results/constituency-speed.md)")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    from ._constituency_data import wsj_sample_split

    train, dev, test = (list(part)[:args.sample] for part in wsj_sample_split())
    if args.speed:
        return _speed(args, train, test, argv)
    args.out = args.out or RESULTS / "constituency.md"
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

    # the spectral grammar: its states and spectrum cut chosen on dev (selection.select_and_refit)
    spectral_auto, choice_t = timed(SpectralLPCFG("auto", max_states=args.max_states, spectrum_cutoff="auto").fit,
                                    train, dev)
    chosen = spectral_auto.selection_.chosen
    m, cut = chosen["n_states"], chosen["spectrum_cutoff"]
    notes.append("spectral dev F1 by (states, spectrum cutoff): " + ", ".join(
        f"({r['n_states']}, {r['spectrum_cutoff']:g}) {r['score']:.2f}" for r in spectral_auto.selection_.table))
    notes.append(f"the spectral choice on dev took {choice_t.cpu:.0f} CPU s")
    log(f"spectral: {m} states, cutoff {cut} chosen")
    # the training cost of the chosen grammar alone (without the dev parses of the choice)
    spectral, spec_t = timed(SpectralLPCFG(m, spectrum_cutoff=cut).fit, train)
    states = spectral.grammar_.states
    # the EM twin: its states chosen on dev the same way, then its training alone timed
    em_auto, em_choice_t = timed(EMLPCFG("auto", max_states=args.em_max_states, max_iter=args.em_iter).fit, train,
                                 dev)
    m_em = em_auto.selection_.chosen["n_states"]
    notes.append("EM dev F1 by states: " + ", ".join(f"{r['n_states']}: {r['score']:.2f}"
                                                     for r in em_auto.selection_.table))
    notes.append(f"the EM choice on dev took {em_choice_t.cpu:.0f} CPU s")
    em, em_t = timed(EMLPCFG(m_em, max_iter=args.em_iter).fit, train)
    log(f"EM: {m_em} states chosen; {em.n_iter_} iterations, converged {em.converged_}")

    # the same states and cutoff as one grammar (no noise): what the combination adds
    single, single_t = timed(SpectralLPCFG(m, spectrum_cutoff=cut, n_grammars=1, dropout=0.0).fit, train)

    results = {}
    for name, est, t, note in (("Markovised PCFG", pcfg, pcfg_t, f"v={v}, h={h}"),
                               ("spectral L-PCFG", spectral, spec_t,
                                f"v=1, h=0, at most {m} states a label, spectrum cutoff {cut:g} (chosen on dev): "
                                f"{states.max()} at most, {states.mean():.1f} on average over {len(states)} labels; "
                                f"{spectral.n_grammars} grammars from SVDs with dropout {spectral.dropout:g}, the mean "
                                "of their span marginals decoded (Narayan & Cohen 2015)"),
                               ("spectral L-PCFG, one grammar", single, single_t,
                                "the same states and cutoff, one grammar without noise"),
                               ("EM L-PCFG", em, em_t, f"v=1, h=0, {m_em} states (chosen on dev), {em.n_iter_} "
                                                       f"iterations{'' if em.converged_ else ', not converged'}")):
        out, pt = _parse(est, test, args.jobs)
        f1 = score(test, out)
        r = est.last_report_
        results[name] = (f1, t, pt)
        rows.append([name, note, f"{f1:.2f}", f"{t.cpu:.1f}", f"{len(test) / pt.wall:.1f}", f"{pt.cpu:.1f}",
                     f"{len(r.no_parse)} ({len(r.chain_lexicon)} parsed with the chain lexicon)"])
        log(f"{name}: test F1 {f1:.2f}, train {t.cpu:.1f} CPU s, {len(test) / pt.wall:.1f} sentences/s")

    # the pruning's cost on dev
    short = [t for t in dev if len(t.leaves()) <= args.unpruned_max_length]
    pruned, pt = _parse(spectral, short, args.jobs)
    unpruned, ut = _parse(spectral, short, args.jobs, pruning=False)
    prune_row = [len(short), f"{score(short, pruned):.2f}", f"{score(short, unpruned):.2f}",
                 f"{len(short) / pt.wall:.1f}", f"{len(short) / ut.wall:.1f}"]

    peer_rows, peer_notes, berkeley_full = _peers(train, test, args, score, log)
    rows += peer_rows
    notes += peer_notes

    # the training curve (the Berkeley parser's too), and the time when the data doubles
    curve = []
    for frac in (0.25, 0.5, 1.0):
        part = train[:int(round(frac * len(train)))]
        row = [f"{frac:.0%} ({len(part)} trees)"]
        for name, make in (("Markovised PCFG", lambda: MarkovPCFG(vertical=v, horizontal=h)),
                           ("spectral L-PCFG", lambda: SpectralLPCFG(m, spectrum_cutoff=cut)),
                           ("EM L-PCFG", lambda: EMLPCFG(m_em, max_iter=args.em_iter))):
            if frac == 1.0:  # fitted above
                row += [f"{results[name][0]:.2f}", f"{results[name][1].cpu:.1f}"]
                continue
            est, t = timed(make().fit, part)
            out, pt = _parse(est, test, args.jobs)
            row += [f"{score(test, out):.2f}", f"{t.cpu:.1f}"]
        berkeley = berkeley_full if frac == 1.0 else _berkeley_part(part, test, frac, args)
        row += ["—", "—"] if berkeley is None else [f"{berkeley[0]:.2f}", f"{berkeley[1]:.0f}"]
        curve.append(row)
        log(f"curve {frac:.0%}: {row}")
    half = test[:len(test) // 2]
    _, half_t = _parse(spectral, half, args.jobs)
    _, full_t = _parse(spectral, test, args.jobs)

    spec_f1, em_f1, pcfg_f1 = results["spectral L-PCFG"][0], results["EM L-PCFG"][0], results["Markovised PCFG"][0]
    lines = ["# Constituency parsing: the spectral L-PCFG, its EM twin and the Markovised PCFG", "",
             describe(__file__, sys.argv[1:] if argv is None else argv), "",
             f"NLTK's WSJ sample split by file (80/10/10): {len(train)} train, {len(dev)} dev, {len(test)} test "
             f"trees, every length. F1: {scorer_name}. Parsing on {args.jobs} threads, coarse-to-fine (plain-PCFG "
             f"posterior threshold {spectral.threshold:g} for the spectral grammar, {pcfg.threshold:g} for the "
             "others), minimum-Bayes-risk trees. Peers: evaluation/_constituency_peers.py (NLTK's "
             "ViterbiParser on gold tags within a time box; the Berkeley parser with its defaults).", "",
             *markdown_table(["grammar", "setting", "test F1", "train CPU s", "test sentences/s", "parse CPU s",
                              "flat fallbacks"], rows), "",
             f"Spectral − PCFG: {spec_f1 - pcfg_f1:+.2f} F1 (target ≥ +4.0); spectral − EM: {spec_f1 - em_f1:+.2f} "
             f"(target ≥ −0.5); the {spectral.n_grammars} grammars − one: "
             f"{spec_f1 - results['spectral L-PCFG, one grammar'][0]:+.2f}; spectral − Berkeley: "
             + (f"{spec_f1 - berkeley_full[0]:+.2f} (target ≥ −2.0)" if berkeley_full else "— (not run)")
             + "; EM / spectral training CPU: "
             f"{results['EM L-PCFG'][1].cpu / results['spectral L-PCFG'][1].cpu:.1f}x ({m_em} against at most {m} "
             "states; the same-states ratio under the timing lock: `--speed`, results/constituency-speed.md).", "",
             "Choices on dev and notes: " + "; ".join(notes) + ".", "",
             "## Pruning's cost (dev sentences of at most "
             f"{args.unpruned_max_length} words, spectral grammar)", "",
             *markdown_table(["sentences", "F1 pruned", "F1 unpruned", "sentences/s pruned", "sentences/s unpruned"],
                             [prune_row]), "",
             "## Training curve (test F1, training CPU s)", "",
             *markdown_table(["train", "PCFG F1", "PCFG s", "spectral F1", "spectral s", "EM F1", "EM s",
                              "Berkeley F1", "Berkeley s"], curve), "",
             "Spectral − Berkeley by training size: " + ", ".join(
                 f"{row[0].split()[0]} {float(row[3]) - float(row[7]):+.2f}" for row in curve if row[7] != "—")
             + " (the gap's trend; the Berkeley parser trained in working directories "
             f"{args.berkeley_curve_workdir}-25 and -50, and at 100% as in the table above).", "",
             f"Parsing time when the test data doubles (spectral grammar, {args.jobs} threads): {half_t.wall:.1f} s "
             f"wall, {half_t.cpu:.1f} CPU s for {len(half)} sentences; {full_t.wall:.1f} s wall, {full_t.cpu:.1f} "
             f"CPU s for {len(test)} ({full_t.wall / half_t.wall:.2f}x wall, {full_t.cpu / half_t.cpu:.2f}x CPU). "
             "Training time when the data doubles: the training curve's CPU columns.", ""]
    write_results(args.out, "\n".join(lines))
    log(f"wrote {args.out}")
    return 0


def _speed(args, train, test, argv) -> int:
    """Training CPU of the spectral grammar and of EM with the same states, and the parsing
    speed on the test sentences: the timings of the issue's targets, for the timing lock."""
    out = args.out or RESULTS / "constituency-speed.md"
    spectral, spec_t = timed(SpectralLPCFG(args.states, spectrum_cutoff=args.cutoff).fit, train)
    em, em_t = timed(EMLPCFG(args.states, max_iter=args.em_iter).fit, train)
    rows = []
    for name, est, t in (("spectral L-PCFG", spectral, spec_t), ("EM L-PCFG", em, em_t)):
        _parse(est, test[:5], args.jobs)  # compiled and warm
        _, pt = _parse(est, test, args.jobs)
        rows.append([name, f"{est.grammar_.states.max()} at most, {est.grammar_.states.mean():.1f} on average",
                     f"{t.cpu:.1f}", f"{t.wall:.1f}", f"{len(test) / pt.wall:.1f}", f"{pt.wall:.2f}", f"{pt.cpu:.2f}"])
        log(f"{name}: train {t.cpu:.1f} CPU s, parse {len(test) / pt.wall:.1f} sentences/s")
    lines = ["# Constituency parsing: training and parsing times (the issue's speed targets)", "",
             describe(__file__, sys.argv[1:] if argv is None else argv), "",
             f"NLTK's WSJ sample split by file: {len(train)} training trees, {len(test)} test sentences parsed on "
             f"{args.jobs} threads (coarse-to-fine); EM: {em.n_iter_} iterations"
             f"{'' if em.converged_ else ' (not converged)'}. Load average at the end: "
             f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}.", "",
             *markdown_table(["grammar", "states", "train CPU s", "train wall s", "test sentences/s",
                              "parse wall s", "parse CPU s"], rows), "",
             f"EM / spectral training CPU: {em_t.cpu / spec_t.cpu:.1f}x (target ≥ 10x); spectral parsing "
             f"{len(test) / float(rows[0][5]):.1f} sentences/s (target ≥ 20).", ""]
    write_results(out, "\n".join(lines))
    log(f"wrote {out}")
    return 0
