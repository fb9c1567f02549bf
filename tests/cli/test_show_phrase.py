"""`seqspectral show` of bracketed trees from standard input (detected by their first
character) and from a file of any name with ``--format bracketed``."""

import subprocess
import sys

from seqspectral.cli.main import main

TREE = "(ROOT (S (NP (DT the) (NN dog)) (VP (VBZ barks)) (. .)))\n"


def _show(*args, stdin: bytes):
    return subprocess.run([sys.executable, "-m", "seqspectral.cli.main", "show", *args], input=stdin,
                          capture_output=True, timeout=120)


def test_standard_input_is_drawn_as_phrase_structure_and_errors_name_it():
    done = _show("-", stdin=b"\xef\xbb\xbf\n  " + TREE.encode())
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert out.startswith("# tree 1: the dog barks .") and "VBZ" in out and "NP" in out
    broken = _show("-", stdin=TREE[:-3].encode())
    assert broken.returncode == 2 and b"<stdin>:1:" in broken.stderr and b"never closed" in broken.stderr


def test_format_bracketed_reads_a_file_of_any_name(tmp_path, capsys):
    path = tmp_path / "trees.txt"
    path.write_text(TREE * 2, encoding="utf-8")
    assert main(["show", str(path), "--format", "bracketed", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("# tree") == 1 and "barks" in out
