"""spaCy worker for evaluation/parsing.py (runs in the venv of ``_spacy.py``).

Trains spaCy's CNN dependency parser from a blank English pipeline on the sentences it is
given (gold tokenization; heads and labels, no tags: the parser of ``spacy init config
--pipeline parser --optimize efficiency`` reads none), with spaCy's default training schedule
(``[training]`` of that config: max_steps 20,000, patience 1,600, evaluation on dev every 200
steps, the best dev model kept), then parses the test sentences one per Doc with their
sentence boundary preset. Input (``input.json``): ``train``/``dev``/``test`` as lists of
{"words", "heads" (1-based, 0 = root), "deprels"}, ``workdir``, ``seed``, ``max_steps`` (None: the default). Output
(``output.json``): test ``heads``/``deprels``, ``train_cpu``, ``parse_cpu`` (CPU seconds of the
process: training includes spaCy's own dev evaluations), ``version``, ``best_step``.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

from _peer_venv import read_input, write_output  # the worker's own directory (a script's sys.path[0])


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def to_doc(vocab, sentence, annotated: bool):
    from spacy.tokens import Doc

    n = len(sentence["words"])
    if not annotated:
        return Doc(vocab, words=sentence["words"], sent_starts=[True] + [False] * (n - 1))
    heads = [h - 1 if h > 0 else i for i, h in enumerate(sentence["heads"])]
    deps = ["ROOT" if h == 0 else d for h, d in zip(sentence["heads"], sentence["deprels"])]
    return Doc(vocab, words=sentence["words"], heads=heads, deps=deps)


def main(directory: str) -> None:
    import spacy
    from spacy.cli.init_config import init_config
    from spacy.cli.train import train
    from spacy.tokens import DocBin

    _, job = read_input(directory)
    work = Path(job["workdir"])
    work.mkdir(parents=True, exist_ok=True)
    vocab = spacy.blank("en").vocab
    for part in ("train", "dev"):
        DocBin(docs=[to_doc(vocab, s, True) for s in job[part]]).to_disk(work / f"{part}.spacy")
    config = init_config(lang="en", pipeline=["parser"], optimize="efficiency", gpu=False)
    config.to_disk(work / "config.cfg")
    start = cpu_seconds()
    overrides = {"paths.train": str(work / "train.spacy"), "paths.dev": str(work / "dev.spacy"),
                 "system.seed": job["seed"]}
    if job.get("max_steps"):
        overrides["training.max_steps"] = job["max_steps"]
    train(work / "config.cfg", work / "model", use_gpu=-1, overrides=overrides)
    train_cpu = cpu_seconds() - start
    nlp = spacy.load(work / "model" / "model-best")
    docs = [to_doc(nlp.vocab, s, False) for s in job["test"]]
    start = cpu_seconds()
    parsed = list(nlp.pipe(docs, batch_size=256))
    parse_cpu = cpu_seconds() - start
    heads = [[0 if t.head.i == t.i else t.head.i + 1 for t in doc] for doc in parsed]
    deprels = [["root" if t.dep_ == "ROOT" else t.dep_ for t in doc] for doc in parsed]
    meta = nlp.meta.get("performance", {})
    write_output(directory, values={"heads": heads, "deprels": deprels, "train_cpu": train_cpu,
                                    "parse_cpu": parse_cpu, "version": spacy.__version__,
                                    "dev_scores": {k: meta.get(k) for k in ("dep_uas", "dep_las")}})


if __name__ == "__main__":
    main(sys.argv[1])
