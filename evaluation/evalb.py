"""`seqspectral evaluate brackets` against EVALB itself: the same files, the same output, figure for figure.

EVALB (Sekine & Collins 1997, the 2006 version with David Ellis's fixes) is built here with
gcc from its public C source (``--evalb-source``, a directory holding ``evalb.c`` and
``COLLINS.prm``: e.g. ``allennlp/tools/EVALB`` of github.com/allenai/allennlp, public domain /
Unlicense; the default is ``$EVALB_SOURCE``, else /work/data/lpcfg-data/EVALB). The gold trees are the
test part of NLTK's WSJ sample (files 180-199 of the 199 sorted by name: 245 sentences), read
twice: as written in the treebank (traces, function tags, the empty root label) and cleaned
up as the toolkit reads them (``read_bracketed``'s defaults). Each is scored against itself
and against seeded perturbations of it that reach every branch of EVALB's algorithm (brackets
removed, added, relabelled, duplicated as unary chains, tags changed, punctuation retagged
as words (length errors), words changed (word errors), sentences emptied of words (skips)).

Each pair is scored twice: as the files are (``--keep-root``: EVALB's own reading, the
empty or ROOT root counted as a bracket) and as ``evaluate brackets`` scores by default
(the root ignored: EVALB run on copies with that root written ``TOP``, which COLLINS.prm
deletes). A row is "identical" when EVALB's standard output and the toolkit's report are
the same bytes (every sentence line and both summaries: all lengths and len<=40).

Usage: python -m evaluation evalb [--evalb-source DIR] [--seed N]   (writes evaluation/results/evalb.md)
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from nltk import Tree

from .common import NLTK_DATA, RESULTS, SEQSPECTRAL, WORK, describe, log, markdown_table, require_data, timed, \
    write_results

from seqspectral.corpus.bracketed import read_bracketed, split_by_file, write_bracketed

OUT = RESULTS / "evalb.md"
WSJ = NLTK_DATA / "corpora" / "treebank.zip"
RAW = dict(remove_empty=False, strip_functions=False, collapse_unary=False, root_label=None)
PUNCTUATION = {",", ":", "``", "''", "."}
LABELS = ["NP", "VP", "S", "PP", "SBAR", "ADJP", "ADVP", "PRT", "QP", "WHNP", "PRN", "FRAG"]
TAGS = ["NN", "NNS", "NNP", "VB", "VBD", "VBZ", "JJ", "RB", "IN", "DT", "CD", "PRP", "CC", "TO", "MD"]


def build_evalb(source: Path) -> Path:
    """EVALB compiled from ``source`` into evaluation/_work (gcc, as its Makefile does)."""
    binary = WORK / "evalb"
    binary.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["gcc", "-O2", "-w", "-o", str(binary), str(source / "evalb.c")], check=True)
    return binary


# -- perturbations (each: trees -> trees, seeded) -----------------------------------------------
def _internal(tree: Tree) -> list[tuple]:
    """Positions of the brackets that are neither the root nor part-of-speech brackets."""
    return [p for p in tree.treepositions() if p and isinstance(tree[p], Tree) and not _preterminal(tree[p])]


def _deepest_last_first(position: tuple):
    """Sort key: deeper positions first, later siblings first (editing one leaves the others valid)."""
    return (-len(position), tuple(-i for i in position))


def _preterminal(t: Tree) -> bool:
    return len(t) == 1 and isinstance(t[0], str)


def flattened(tree: Tree, rng: random.Random, share: float = 0.3) -> Tree:
    """A share of the brackets removed, their children given to their parent."""
    tree = tree.copy(deep=True)
    for p in sorted((p for p in _internal(tree) if rng.random() < share), key=_deepest_last_first):
        parent, i = tree[p[:-1]], p[-1]
        parent[i:i + 1] = list(tree[p])
    return tree


def relabelled(tree: Tree, rng: random.Random, share: float = 0.25) -> Tree:
    """A share of the brackets given another label (ADVP and PRT among them)."""
    tree = tree.copy(deep=True)
    for p in _internal(tree):
        if rng.random() < share:
            tree[p].set_label(rng.choice(LABELS))
    return tree


def grouped(tree: Tree, rng: random.Random, share: float = 0.3) -> Tree:
    """New brackets over two or more adjacent children of a share of the brackets (crossings)."""
    tree = tree.copy(deep=True)
    for p in sorted([()] + _internal(tree), key=_deepest_last_first):
        node = tree[p]
        if len(node) >= 3 and rng.random() < share:
            i = rng.randrange(len(node) - 1)
            j = rng.randrange(i + 2, len(node) + 1)
            node[i:j] = [Tree(rng.choice(LABELS), list(node[i:j]))]
    return tree


def unary_doubled(tree: Tree, rng: random.Random, share: float = 0.2) -> Tree:
    """A share of the brackets wrapped in a copy of their own label (X -> X: EVALB's multiset rule)."""
    tree = tree.copy(deep=True)
    for p in sorted((p for p in _internal(tree) if rng.random() < share), key=_deepest_last_first):
        tree[p] = Tree(tree[p].label(), [tree[p]])
    return tree


def retagged(tree: Tree, rng: random.Random, share: float = 0.15) -> Tree:
    """A share of the tags of words (not punctuation, not traces) changed."""
    tree = tree.copy(deep=True)
    for p in tree.treepositions("leaves"):
        pos = tree[p[:-1]]
        if pos.label() not in PUNCTUATION and pos.label() != "-NONE-" and rng.random() < share:
            pos.set_label(rng.choice([t for t in TAGS if t != pos.label()]))
    return tree


def right_branching(tree: Tree, rng: random.Random) -> Tree:
    """The gold words and tags under a right-branching tree of S brackets (a weak parser)."""
    tags = [Tree(tag, [word]) for word, tag in tree.pos()]
    node = tags[-1]
    for t in reversed(tags[:-1]):
        node = Tree("S", [t, node])
    return Tree(tree.label(), [node])


def with_errors(tree: Tree, i: int) -> Tree:
    """Every 40th sentence its first punctuation tagged NN (EVALB: length mismatch), every 40th
    from the 13th its first word changed (words mismatch), every 40th from the 27th all its
    words tagged '.' (no words left: skipped)."""
    tree = tree.copy(deep=True)
    leaves = tree.treepositions("leaves")
    if i % 40 == 0:
        for p in leaves:
            if tree[p[:-1]].label() in PUNCTUATION:
                tree[p[:-1]].set_label("NN")
                break
    elif i % 40 == 13:
        tree[leaves[0]] = tree[leaves[0]] + "x"
    elif i % 40 == 27:
        for p in leaves:
            tree[p[:-1]].set_label(".")
    return tree


PERTURBATIONS = {
    "identical": lambda t, rng, i: t,
    "30% brackets removed": lambda t, rng, i: flattened(t, rng),
    "25% relabelled": lambda t, rng, i: relabelled(t, rng),
    "brackets added (crossing)": lambda t, rng, i: grouped(t, rng),
    "20% unary X -> X added": lambda t, rng, i: unary_doubled(t, rng),
    "15% tags changed": lambda t, rng, i: retagged(t, rng),
    "right-branching": lambda t, rng, i: right_branching(t, rng),
    "all of the above + errors, skips": lambda t, rng, i: with_errors(
        retagged(unary_doubled(grouped(relabelled(flattened(t, rng), rng), rng), rng), rng), i),
}


def with_top_root(trees) -> list[Tree]:
    """Copies with the root labelled TOP where it had no label or ROOT."""
    out = []
    for t in trees:
        t = t.copy(deep=True)
        if t.label() in ("", "ROOT"):
            t.set_label("TOP")
        out.append(t)
    return out


def compare(evalb: Path, prm: Path, gold_file: Path, test_file: Path, keep_root: bool) -> dict:
    """Run EVALB and `seqspectral evaluate brackets --report` on the same two files."""
    theirs = subprocess.run([str(evalb), "-p", str(prm), "-e", "100000", str(gold_file), str(test_file)],
                            capture_output=True, text=True, check=True).stdout
    ours_cmd = [*SEQSPECTRAL, "evaluate", "brackets", str(gold_file), str(test_file), "--report"]
    ours = subprocess.run(ours_cmd + (["--keep-root"] if keep_root else []), capture_output=True, text=True,
                          check=True).stdout
    return {"ours": ours, "theirs": theirs, "identical": ours == theirs, "figures": _summary(theirs), "mine": _summary(ours)}


def _summary(text: str) -> dict:
    """The summary figures of an EVALB report: {"All"|"len<=40": {name: value}}."""
    out, part = {}, None
    for line in text.splitlines():
        if line.startswith("-- "):
            part = line.strip("- ")
            out[part] = {}
        elif part and "=" in line:
            name, value = line.split("=")
            out[part][name.strip()] = value.strip()
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation evalb", description=__doc__.split("\n")[0])
    parser.add_argument("--evalb-source", type=Path,
                        default=Path(os.environ.get("EVALB_SOURCE", "/work/data/lpcfg-data/EVALB")),
                        help="directory with EVALB's evalb.c and COLLINS.prm (default $EVALB_SOURCE, else "
                             "/work/data/lpcfg-data/EVALB)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the perturbations (default 0)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    require_data(WSJ, args.evalb_source / "evalb.c", args.evalb_source / "COLLINS.prm",
                 hint="EVALB's source: allennlp/tools/EVALB of github.com/allenai/allennlp")
    evalb = build_evalb(args.evalb_source)
    prm = args.evalb_source / "COLLINS.prm"
    test_files = split_by_file(WSJ)["test"]
    golds = {"as in the treebank": read_bracketed(WSJ, files=test_files, **RAW),
             "cleaned up (toolkit defaults)": read_bracketed(WSJ, files=test_files)}
    rows, mismatches, n_identical, n_runs = [], [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for gold_name, gold in golds.items():
            for name, perturb in PERTURBATIONS.items():
                rng = random.Random(args.seed)
                test = [perturb(t, rng, i) for i, t in enumerate(gold)]
                for keep_root in (True, False):
                    g, t = (gold, test) if keep_root else (with_top_root(gold), with_top_root(test))
                    gf, tf = tmp / "gold.mrg", tmp / "test.mrg"
                    write_bracketed(gf, g, empty_root=False)  # roots as they are: "", ROOT or TOP
                    write_bracketed(tf, t, empty_root=False)
                    result = compare(evalb, prm, gf, tf, keep_root)
                    n_runs += 1
                    n_identical += result["identical"]
                    if not result["identical"]:
                        mismatches.append(f"{gold_name} / {name} / keep_root={keep_root}")
                    a, c = result["figures"]["All"], result["figures"]["len<=40"]
                    m = result["mine"]["All"]
                    rows.append([gold_name, name, "as written" if keep_root else "ignored (TOP)",
                                 a["Bracketing FMeasure"], m["Bracketing FMeasure"], c["Bracketing FMeasure"],
                                 a["Complete match"], a["Tagging accuracy"], a["Number of Error sentence"],
                                 a["Number of Skip  sentence"], "yes" if result["identical"] else "**no**"])
                    log(f"{gold_name} / {name} / root {'kept' if keep_root else 'TOP'}: F1 {a['Bracketing FMeasure']} "
                        f"identical={result['identical']}")
        # the cost of scoring: both programs on the largest pair, the time of the whole command
        gf, tf = tmp / "gold.mrg", tmp / "test.mrg"
        _, theirs_t = timed(subprocess.run, [str(evalb), "-p", str(prm), str(gf), str(tf)], capture_output=True)
        _, ours_t = timed(subprocess.run, [*SEQSPECTRAL, "evaluate", "brackets", str(gf), str(tf)],
                          capture_output=True)
    header = ["gold", "test", "root", "EVALB F1", "ours F1", "EVALB F1 ≤40", "EVALB complete match",
              "EVALB tagging", "error sent.", "skipped sent.", "identical output"]
    lines = ["# `evaluate brackets` against EVALB", "", describe(__file__, sys.argv[1:] if argv is None else argv), "",
             f"EVALB built with gcc from {args.evalb_source / 'evalb.c'}, parameters {prm} (COLLINS.prm). Gold: the "
             f"test part of NLTK's WSJ sample ({len(test_files)} files, {len(golds['as in the treebank'])} sentences). "
             f"**{n_identical} of {n_runs} runs identical byte for byte** (EVALB's standard output against "
             f"`seqspectral evaluate brackets --report`: every sentence line, both summaries)." , "",
             *markdown_table(header, rows, align="lllrrrrrrrl"), "",
             f"Time of one run on 245 sentences (wall, child CPU): EVALB {theirs_t.wall:.3f} s, "
             f"{theirs_t.child_cpu:.3f} s; `seqspectral evaluate brackets` {ours_t.wall:.3f} s, "
             f"{ours_t.child_cpu:.3f} s (Python start-up and NLTK's import included)."]
    if mismatches:
        lines += ["", "Runs that differ: " + "; ".join(mismatches)]
    write_results(OUT, "\n".join(lines))
    log(f"wrote {OUT}: {n_identical}/{n_runs} identical")
    return 0 if not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
