"""The peers of the constituency benchmark, as functions: NLTK's treebank PCFG with its
``ViterbiParser`` and the Berkeley parser (Petrov & Klein 2007), each trained on the same
training trees and run on the same test sentences.

Each returns a :class:`PeerRun`: one tree or ``None`` a test sentence (None: not parsed within
its time box, or no parse), the training and parsing times (wall and CPU seconds), and notes
saying what was done. Score the parsed sentences with :func:`scored`.

- :func:`nltk_viterbi`: ``nltk.induce_pcfg`` over the training trees made binary as NLTK's
  own recipe does (``collapse_unary``, ``chomsky_normal_form`` with horizontal Markovisation
  ``horz_markov``), the words replaced by their part-of-speech tags (NLTK's grammar has no
  unknown-word model: a test word unseen in training would leave the sentence unparsed), so
  it parses the gold tags of the test sentences; ``ViterbiParser`` (pure Python) under a time
  box of CPU seconds per sentence (``ITIMER_PROF``: a busy machine does not shrink it) and in
  all (sentences after ``total_seconds`` of CPU are not tried), the output un-binarised and
  given its words back.
- :func:`berkeley`: the Berkeley parser's jar (``edu.berkeley.nlp.PCFGLA.GrammarTrainer`` with
  its defaults, ``-treebank SINGLEFILE``: 6 split-merge-smooth cycles; then
  ``edu.berkeley.nlp.PCFGLA.BerkeleyParser`` on the words, one sentence a line), run as
  subprocesses in a working directory outside the repository; the CPU seconds are the child
  processes' (``resource.RUSAGE_CHILDREN``). A training that does not end within
  ``train_timeout`` seconds is stopped and reported as such, with the time it ran.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from nltk import Nonterminal, Tree, induce_pcfg
from nltk.parse import ViterbiParser

from seqspectral.constituency.evalb import evalb
from seqspectral.corpus.bracketed import parse_bracketed


@dataclass
class PeerRun:
    """What a peer did: ``trees`` (one a test sentence; None: not parsed), ``train`` and ``parse``
    times as ``(wall, cpu)`` seconds, and ``notes`` (how it was run, what it could not do)."""

    name: str
    trees: list = field(default_factory=list)
    train: tuple[float, float] = (0.0, 0.0)
    parse: tuple[float, float] = (0.0, 0.0)
    notes: list[str] = field(default_factory=list)

    @property
    def parsed(self) -> list[int]:
        """The indices of the test sentences it parsed."""
        return [i for i, t in enumerate(self.trees) if t is not None]


def scored(gold: list, run: PeerRun, indices: list[int] | None = None):
    """EVALB's result (COLLINS.prm, root ignored) of ``run`` on ``indices`` (default: the
    sentences it parsed) against ``gold``."""
    indices = run.parsed if indices is None else indices
    return evalb([gold[i] for i in indices], [run.trees[i] for i in indices])


# -- NLTK -------------------------------------------------------------------------------------
def _tags_as_words(tree: Tree) -> Tree:
    tree = tree.copy(deep=True)
    for p in tree.treepositions("leaves"):
        tree[p] = tree[p[:-1]].label()
    return tree


def nltk_viterbi(train: list, test: list, *, horz_markov: int = 2, seconds_per_sentence: float = 30.0,
                 total_seconds: float = 900.0) -> PeerRun:
    """NLTK's ``induce_pcfg`` and ``ViterbiParser`` (module docstring) on the gold tags of
    ``test``; sentences tried in order until ``total_seconds`` of CPU have passed, each for
    at most ``seconds_per_sentence`` of CPU."""
    run = PeerRun("NLTK induce_pcfg + ViterbiParser")
    wall, cpu = time.perf_counter(), time.process_time()
    productions = []
    for tree in train:
        tree = _tags_as_words(tree)
        tree.collapse_unary(collapsePOS=False)
        tree.chomsky_normal_form(horzMarkov=horz_markov)
        productions += tree.productions()
    grammar = induce_pcfg(Nonterminal(train[0].label()), productions)
    parser = ViterbiParser(grammar, max_time=None)
    run.train = (time.perf_counter() - wall, time.process_time() - cpu)
    run.notes.append(f"grammar: {len(grammar.productions())} rules from {len(train)} trees (tags as words, unary "
                     f"chains collapsed, Chomsky normal form, horizontal Markovisation {horz_markov})")
    wall, cpu = time.perf_counter(), time.process_time()
    outcomes = Counter()
    previous = signal.signal(signal.SIGPROF, _out_of_time)
    try:
        for gold in test:
            in_time = time.process_time() - cpu < total_seconds
            best, outcome = _viterbi(parser, gold, seconds_per_sentence if in_time else 0.0)
            outcomes[outcome] += 1
            run.trees.append(best)
    finally:
        signal.signal(signal.SIGPROF, previous)
    run.parse = (time.perf_counter() - wall, time.process_time() - cpu)
    run.notes.append(f"parsed {outcomes['parsed']} of {len(test)} test sentences (time box {seconds_per_sentence:g} s "
                     f"a sentence, {total_seconds:g} s in all): {outcomes['over its time box']} over their time box, "
                     f"{outcomes['no parse']} without a parse, {outcomes['not tried']} not tried")
    return run


class _OutOfTime(Exception):
    pass


def _out_of_time(signum, frame):
    raise _OutOfTime


def _viterbi(parser, gold: Tree, seconds: float):
    """(the best parse of ``gold``'s tags with its words back, or None; what happened) within
    ``seconds`` of CPU time (``ITIMER_PROF``)."""
    if seconds <= 0:
        return None, "not tried"
    words, tags = zip(*gold.pos())
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        best = next(iter(parser.parse(list(tags))), None)
    except _OutOfTime:
        return None, "over its time box"
    except ValueError:  # a tag the grammar has never seen
        return None, "no parse"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    if best is None:
        return None, "no parse"
    best = Tree.convert(best)
    best.un_chomsky_normal_form()
    for p, word in zip(best.treepositions("leaves"), words):
        best[p] = word
    return best, "parsed"


# -- the Berkeley parser ---------------------------------------------------------------------------
def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def berkeley(train_file: Path, test: list, *, jar: Path, workdir: Path, train_timeout: float = 3600.0,
             parse_timeout: float = 3600.0, memory: str = "6g", threads: int = 1, reuse: bool = True) -> PeerRun:
    """The Berkeley parser trained with its defaults on ``train_file`` (bracketed trees, one
    file) and run on the words of the ``test`` trees (module docstring). With ``reuse``, a
    grammar trained before in ``workdir`` is used, with the training times recorded then; a
    training under way in ``workdir`` (another process's) is waited for (a lock file)."""
    import fcntl

    run = PeerRun("Berkeley parser (split-merge EM, 6 cycles)")
    workdir.mkdir(parents=True, exist_ok=True)
    with open(workdir / "train.lock", "w") as lock:  # a training under way here (another run's): wait for it
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _berkeley_locked(run, train_file, test, jar, workdir, train_timeout, parse_timeout, memory, threads,
                                reuse)


def _berkeley_locked(run, train_file, test, jar, workdir, train_timeout, parse_timeout, memory, threads, reuse):
    grammar, timing = workdir / "grammar.gr", workdir / "train-seconds.json"
    command = ["java", f"-Xmx{memory}", "-cp", str(jar), "edu.berkeley.nlp.PCFGLA.GrammarTrainer", "-path",
               str(train_file), "-out", str(grammar), "-treebank", "SINGLEFILE"]
    if grammar.exists() and timing.exists() and reuse:  # an hour of training, measured once
        run.train = tuple(json.loads(timing.read_text())["wall_cpu"])
        run.notes.append(f"trained earlier (times as measured then): `{' '.join(command)}`")
    else:
        wall, cpu = time.perf_counter(), _children_cpu()
        with open(workdir / "train.log", "w") as log:
            try:
                subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, timeout=train_timeout, check=True)
            except subprocess.TimeoutExpired:
                run.train = (time.perf_counter() - wall, _children_cpu() - cpu)
                run.notes.append(f"training stopped after {run.train[0]:.0f} s (wall; the time box): "
                                 f"`{' '.join(command)}`; its log: {workdir / 'train.log'}")
                run.trees = [None] * len(test)
                return run
        run.train = (time.perf_counter() - wall, _children_cpu() - cpu)
        timing.write_text(json.dumps({"wall_cpu": run.train, "command": command}))
        run.notes.append(f"trained: `{' '.join(command)}`")
    parsed = berkeley_parse(grammar, test, jar=jar, workdir=workdir, parse_timeout=parse_timeout, memory=memory,
                            threads=threads)
    parsed.name, parsed.train, parsed.notes = run.name, run.train, run.notes + parsed.notes
    return parsed


def berkeley_parse(grammar: Path, test: list, *, jar: Path, workdir: Path, parse_timeout: float = 3600.0,
                   memory: str = "6g", threads: int = 1) -> PeerRun:
    """The words of the ``test`` trees parsed by the Berkeley parser with the grammar file
    ``grammar`` (a final or an intermediate one of its training); no training times. One
    thread by default: with ``-nThreads 2`` its MultiThreadedParserWrapper once waited forever
    here (Java 17; the main thread in ``Object.wait`` in ``parseThisSentence``, no CPU used)."""
    run = PeerRun(f"Berkeley parser ({grammar.name})")
    workdir.mkdir(parents=True, exist_ok=True)
    sentences = workdir / "test.txt"
    sentences.write_text("".join(" ".join(t.leaves()) + "\n" for t in test), encoding="utf-8")
    command = ["java", f"-Xmx{memory}", "-cp", str(jar), "edu.berkeley.nlp.PCFGLA.BerkeleyParser", "-gr",
               str(grammar), "-inputFile", str(sentences), "-nThreads", str(threads)]
    wall, cpu = time.perf_counter(), _children_cpu()
    out = subprocess.run(command, capture_output=True, text=True, timeout=parse_timeout, check=True).stdout
    run.parse = (time.perf_counter() - wall, _children_cpu() - cpu)
    run.notes.append(f"parsed: `{' '.join(command)}` ({threads} threads)")
    lines = out.splitlines()
    if len(lines) != len(test):
        raise RuntimeError(f"the Berkeley parser wrote {len(lines)} lines for {len(test)} sentences")
    for line in lines:
        parsed = parse_bracketed(line) if line.strip() not in ("", "(())") else []
        run.trees.append(parsed[0] if parsed else None)
    return run
