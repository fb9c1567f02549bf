"""`seqspectral evaluate conll18` against the CoNLL 2018 shared task's own script, figure for figure.

The official ``conll18_ud_eval.py`` (UFAL, MPL 2.0; https://github.com/ufal/conll2018,
``evaluation_script/conll18_ud_eval.py``) is not part of the project: give its path with
``--script`` (the default is where the issue-40 session put it). It runs on UD English-EWT
test against three prediction files with gold tokenisation:

- ``--pred``: the toolkit's predictions (every column, e.g. ``rerank run`` or ``tag run``
  followed by ``parse run``);
- a deliberately damaged copy of the gold file: in a seeded random share of the words, UPOS,
  XPOS, lemma, relation (subtype or base), universal and non-universal features and head
  changed (the head to a word that is not a descendant, so each sentence stays a tree with
  one root);
- ``--pred`` with wrong lemmas: every third word's lemma replaced by its form reversed.

For each, both programs print the counts (``-c``: correct, gold, system, aligned words) and
the percentages (``-v``) of Words, UPOS, XPOS, UFeats, AllTags, Lemmas, UAS, LAS, CLAS, MLAS
and BLEX; the rows must be equal character for character. Writes
``evaluation/results/conll18_metrics.md``::

    python -m evaluation conll18_metrics --pred PRED.conllu
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from .common import RESULTS, SEQSPECTRAL, describe, ewt, log, markdown_table, require_data, write_results

OUT = RESULTS / "conll18_metrics.md"
SCRIPT = Path("/work/data/lemmas/conll18_ud_eval.py")
METRICS = ("Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS", "MLAS", "BLEX")
ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL = range(8)


def _blocks(text: str) -> list[list[str]]:
    return [b.split("\n") for b in text.strip("\n").split("\n\n")]


def _join(blocks) -> str:
    return "\n\n".join("\n".join(b) for b in blocks) + "\n\n"


def damaged(text: str, rate: float, seed: int) -> str:
    """The CoNLL-U ``text`` with a ``rate`` share of its words damaged (module docstring)."""
    rng = random.Random(seed)
    upos = ["NOUN", "VERB", "ADJ", "ADV", "PROPN", "X", "PRON", "DET", "ADP"]
    feats = ["Number=Sing", "Number=Plur", "Tense=Past", "Gender=Masc", "Typo=Yes", "Abbr=Yes", "NumForm=Digit"]
    relations = ["nsubj", "obj", "obl:tmod", "nmod:poss", "det", "case", "aux", "cop", "mark", "amod", "punct",
                 "compound:prt", "cc", "conj", "advmod", "dep"]
    out = []
    for block in _blocks(text):
        rows = [(i, line.split("\t")) for i, line in enumerate(block) if line and line[0].isdigit()
                and line.split("\t", 1)[0].isdigit()]
        heads = {int(c[ID]): int(c[HEAD]) for _, c in rows}
        for i, c in rows:
            if rng.random() >= rate:
                continue
            what = rng.randrange(7)
            if what == 0:
                c[UPOS] = rng.choice(upos)
            elif what == 1:
                c[XPOS] = c[XPOS] + "X"
            elif what == 2:
                c[LEMMA] = c[LEMMA].upper() if rng.random() < 0.5 else "_"
            elif what == 3:
                base = c[DEPREL].split(":")[0]
                c[DEPREL] = base + ":sub" if rng.random() < 0.5 else rng.choice(relations)
            elif what == 4:
                have = [] if c[FEATS] == "_" else c[FEATS].split("|")
                f = rng.choice(feats)
                have = [x for x in have if x != f] if f in have else have + [f]
                c[FEATS] = "|".join(sorted(have)) or "_"
            elif what == 5 and heads[int(c[ID])] != 0:
                word = int(c[ID])
                below = {word}
                changed = True
                while changed:
                    changed = False
                    for w, h in heads.items():
                        if h in below and w not in below:
                            below.add(w)
                            changed = True
                choices = [w for w in heads if w not in below]
                if choices:
                    heads[word] = rng.choice(choices)
                    c[HEAD] = str(heads[word])
            elif what == 6:
                c[DEPREL] = rng.choice(relations)
            block[i] = "\t".join(c)
        out.append(block)
    return _join(out)


def wrong_lemmas(text: str) -> str:
    """``text`` with every third word's lemma replaced by its form reversed."""
    out, n = [], 0
    for block in _blocks(text):
        for i, line in enumerate(block):
            c = line.split("\t")
            if len(c) == 10 and c[ID].isdigit():
                n += 1
                if n % 3 == 0:
                    c[LEMMA] = c[FORM][::-1] + "x"
                    block[i] = "\t".join(c)
        out.append(block)
    return _join(out)


def rows_of(output: str) -> dict[str, str]:
    """The metric rows of a ``-v`` or ``-c`` table, by metric."""
    return {line.split("|")[0].strip(): line for line in output.splitlines()
            if "|" in line and line.split("|")[0].strip() in METRICS}


def both(script: Path, gold: Path, pred: Path, flag: str) -> tuple[dict, dict]:
    official = subprocess.run([sys.executable, str(script), flag, str(gold), str(pred)], check=True,
                              capture_output=True, text=True).stdout
    ours = subprocess.run([*SEQSPECTRAL, "evaluate", "conll18", *(["--counts"] if flag == "-c" else []),
                           str(gold), str(pred)], check=True, capture_output=True, text=True).stdout
    return rows_of(official), rows_of(ours)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pred", type=Path, required=True, help="the toolkit's predictions on EWT test (CoNLL-U)")
    ap.add_argument("--script", type=Path, default=SCRIPT, help=f"conll18_ud_eval.py (default {SCRIPT})")
    ap.add_argument("--rate", type=float, default=0.3, help="share of damaged words (default 0.3)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    gold = ewt("test")
    require_data(gold, args.pred, args.script, hint="the official script: https://github.com/ufal/conll2018")
    with tempfile.TemporaryDirectory() as tmp:
        files = {"ours (--pred)": args.pred}
        files["damaged gold"] = Path(tmp, "damaged.conllu")
        files["damaged gold"].write_text(damaged(gold.read_text(encoding="utf-8"), args.rate, args.seed),
                                         encoding="utf-8")
        files["ours, wrong lemmas"] = Path(tmp, "lemmas.conllu")
        files["ours, wrong lemmas"].write_text(wrong_lemmas(args.pred.read_text(encoding="utf-8")), encoding="utf-8")
        table, failures = [], 0
        for name, path in files.items():
            log(f"{name}: {path}")
            counts_official, counts_ours = both(args.script, gold, path, "-c")
            pct_official, pct_ours = both(args.script, gold, path, "-v")
            for metric in METRICS:
                same = counts_official.get(metric) == counts_ours.get(metric) and \
                    pct_official.get(metric) == pct_ours.get(metric)
                failures += not same
                f1 = pct_official[metric].split("|")[3].strip()
                ours_f1 = pct_ours[metric].split("|")[3].strip() if metric in pct_ours else "missing"
                counts = " / ".join(x.strip() for x in counts_official[metric].split("|")[1:4])
                table.append((name, metric, counts, f1, ours_f1, "yes" if same else "**NO**"))
    lines = ["# `evaluate conll18` against the CoNLL 2018 shared task's script (issue 40)", "",
             describe(__file__, sys.argv[1:]), "",
             f"Gold: UD English-EWT test ({gold.name}). Official script: `{args.script}` "
             "(https://github.com/ufal/conll2018, evaluation_script/conll18_ud_eval.py, MPL 2.0; not in the "
             "repository). Each row: the script's counts (correct / gold / system words) and F1 with `-c` and `-v`, "
             "our F1, and whether both rows (`-c` and `-v`) of `seqspectral evaluate conll18` are equal to the "
             "script's character for character.", "",
             *markdown_table(("predictions", "metric", "correct / gold / system", "official F1", "ours F1", "equal"),
                             table, "llrrrc"), "",
             f"{len(table) - failures} of {len(table)} rows equal."]
    write_results(OUT, "\n".join(lines))
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
