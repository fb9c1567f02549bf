"""Start-up: ``seqspectral --help`` and every command group's ``--help`` import no numerical
library and no reader, model or kernel of the package, only the option lists they show (the
time is measured by ``python -m evaluation startup``; issue 43: the 50 ms class)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from seqspectral.cli.main import COMMAND_GROUPS  # light: the command's own module

#: what the help of a command may not import: the numerical stack and the parsers of files
HEAVY = ("numpy", "scipy", "numba", "sklearn", "conllu", "nltk", "tqdm", "threadpoolctl")


def imported(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter has imported after ``seqspectral ARGV`` returns or exits."""
    code = ("import json, sys\nfrom seqspectral.cli.main import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stderr.rsplit("MODULES ", 1)[1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_top_level_help_imports_no_library_code():
    modules = imported(["--help"])
    assert _heavy(modules) == []
    assert "inspect" not in modules  # dataclasses imports it (the bounds table is a named tuple)
    assert sorted(m for m in modules if m.startswith("seqspectral.") and not m.startswith("seqspectral.cli")) \
        == ["seqspectral.bounds", "seqspectral.interrupts"]  # the bounds table: the options' types


@pytest.mark.parametrize("group", COMMAND_GROUPS)
def test_a_command_group_help_imports_only_its_option_lists(group):
    modules = imported([group, "--help"])
    assert _heavy(modules) == [], f"`seqspectral {group} --help` imports the numerical stack"
    library = {m for m in modules if m.startswith("seqspectral.") and not m.startswith("seqspectral.cli")}
    allowed = {"seqspectral.bounds", "seqspectral.interrupts", "seqspectral.exports", "seqspectral.corpus", "seqspectral.corpus.errors",
               "seqspectral.corpus.formats", "seqspectral.corpus.options", "seqspectral.corpus.reading", "seqspectral.corpus.tagsets",
               "seqspectral.corpus.textfile", "seqspectral.lm", "seqspectral.lm.methods"}
    assert sorted(library - allowed) == []
    others = {f"seqspectral.cli.{g}" for g in COMMAND_GROUPS if g != group}
    assert sorted(modules & others) == [], f"`seqspectral {group} --help` imports other groups' modules"


def test_the_check_sees_what_a_running_command_imports():
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "corpora" / "ewt-sample.conllu"
    assert "numpy" in imported(["corpus", "stats", str(sample)])  # reading does need it
    assert _heavy({"numpy.linalg", "seqspectral.corpus", "scipy"}) == ["numpy.linalg", "scipy"]
