"""The command line against hostile or unlucky input (issue 27): bad input and bad options are
exit 2 with one line naming the file or option, outputs are never partial, special outputs are
written through."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from seqspectral.cli.main import main

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
TRAIN = CORPORA / "ewt-sample.conllu"
WORD = "1\tThe\tthe\tDET\tDT\t_\t{head}\tdet\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t0\troot\t_\t_\n\n"


def run(capsys, *argv, status):
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == status, err
    return err


@pytest.fixture(scope="module")
def tagger(tmp_path_factory):
    path = tmp_path_factory.mktemp("tagger") / "t.npz"
    assert main(["tag", "train", str(TRAIN), "-o", str(path), "--epochs", "1", "--hash-bits", "12", "--quiet"]) == 0
    return path


@pytest.mark.parametrize("head", [2 ** 63, 2 ** 64 + 5, -(2 ** 63) - 1])
@pytest.mark.parametrize("command", [["tree", "train"], ["lm", "train", "--method", "ngram"], ["corpus", "stats"]])
def test_a_head_beyond_any_integer_type_is_a_format_error_at_its_line(tmp_path, capsys, head, command):
    path = tmp_path / "t.conllu"
    path.write_text(WORD.format(head=head))
    out = ["-o", tmp_path / "m.npz"] if "train" in command else []
    err = run(capsys, *command, path, *out, status=2)
    assert f"{path}:1: head {head} out of range" in err and err.count("\n") == 1


@pytest.mark.parametrize("content", ["", "# only\n# comments\n", "\n \n\t\n"])
@pytest.mark.parametrize("command", [["lm", "train", "--method", "ngram", "-o", "{out}"], ["tree", "train", "-o", "{out}"],
                                     ["embed", "-o", "{out}"], ["embed", "-o", "{out}", "--workers", "2"],
                                     ["lm", "train", "--method", "ngram", "-o", "{out}", "--workers", "2"]])
def test_an_input_with_nothing_to_read_is_exit_2_naming_it_in_every_command(tmp_path, capsys, content, command):
    path = tmp_path / "empty.conllu"
    path.write_text(content)
    out = tmp_path / "out"
    argv = [command[0], command[1], path, *[str(a).format(out=out) for a in command[2:]]] if command[1] == "train" \
        else [command[0], path, *[str(a).format(out=out) for a in command[1:]]]
    err = run(capsys, *argv, status=2)
    assert f"{path}: no words to read" in err and not out.exists()


def test_scoring_an_empty_file_is_exit_2_like_parsing_it(tmp_path, capsys, tagger):
    empty = tmp_path / "e.conllu"
    empty.write_text("")
    assert "e.conllu: no sentences" in run(capsys, "tag", "run", tagger, empty, "-o", tmp_path / "o", status=2)
    model = tmp_path / "lm.npz"
    run(capsys, "lm", "train", TRAIN, "--method", "ngram", "-o", model, "--quiet", status=0)
    assert "e.conllu: no words to read" in run(capsys, "lm", "score", model, empty, status=2)


@pytest.mark.parametrize("option", [["--encoding", "rot13"], ["--encoding", "base64"], ["--encoding", "nonesuch"],
                                    ["--workers", "2", "--shard-mb", "1e-9"], ["--workers", "2", "--shard-mb", "inf"],
                                    ["--workers", "2", "--shard-mb", "nan"], ["--workers", "100000"],
                                    ["--basis-length", "1000000"]])
def test_bad_options_are_exit_2_naming_the_option(tmp_path, capsys, option):
    try:
        code = main(["lm", "train", str(TRAIN), "--method", "spectral", "-o", str(tmp_path / "m.npz"), *option])
    except SystemExit as e:  # argparse's own exit
        code = e.code
    assert code == 2 and option[-2] in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("argv", [["parse", "run", "{model}", str(TRAIN), "-k", "1000000000", "-o", "{out}"],
                                  ["tag", "run", "{model}", str(TRAIN), "-k", "1000000000", "-o", "{out}"],
                                  ["tree", "train", str(TRAIN), "--method", "em", "--dim", "1000000", "-o", "{out}"],
                                  ["embed", str(TRAIN), "--window", "1000000", "-o", "{out}"],
                                  ["tag", "train", str(TRAIN), "--hash-bits", "40", "-o", "{out}"]])
def test_options_that_set_memory_are_bounded(tmp_path, capsys, tagger, argv):
    with pytest.raises(SystemExit) as e:
        main([a.format(model=tagger, out=tmp_path / "o") for a in argv])
    assert e.value.code == 2 and "at most" in capsys.readouterr().err


def test_a_sentence_too_long_to_parse_is_refused_naming_it(tmp_path, capsys):
    path = tmp_path / "long.conllu"
    rows = [f"{i}\tw\tw\tNOUN\tNN\t_\t{0 if i == 1 else 1}\tdep\t_\t_" for i in range(1, 2002)]
    path.write_text("\n".join(rows) + "\n\n")
    err = run(capsys, "parse", "train", path, "-o", tmp_path / "p.npz", status=2)
    assert "long.conllu: sentence 1 has 2001 words" in err


def test_every_output_is_checked_before_any_is_written(tmp_path, capsys):
    out = tmp_path / "e.txt"
    err = run(capsys, "embed", TRAIN, "-o", out, "--model", "/no/such/dir/m.npz", status=2)
    assert "/no/such/dir/m.npz" in err and not out.exists()


def test_outputs_write_through_links_and_into_devices_and_fifos(tmp_path, capsys, tagger):
    real, link = tmp_path / "real.conllu", tmp_path / "link.conllu"
    real.write_text("old")
    link.symlink_to(real)
    run(capsys, "tag", "run", tagger, TRAIN, "-o", link, "--quiet", status=0)
    assert link.is_symlink() and real.read_text().startswith("# ")
    run(capsys, "tag", "run", tagger, TRAIN, "-o", "/dev/null", "--quiet", status=0)
    assert Path("/dev/null").is_char_device()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    pid = os.fork()
    if pid == 0:  # the reader
        with open(fifo) as f:
            os._exit(0 if f.read() == real.read_text() else 1)
    run(capsys, "tag", "run", tagger, TRAIN, "-o", fifo, "--quiet", status=0)
    assert os.waitpid(pid, 0)[1] == 0 and fifo.exists() and not fifo.is_file()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_disk_names_the_output(capsys, tagger):
    err = run(capsys, "tag", "run", tagger, TRAIN, "-o", "/dev/full", "--quiet", status=2)
    assert err.strip() == "seqspectral: error: /dev/full: No space left on device"


def test_warnings_are_one_line_without_source(tmp_path, capsys):
    import warnings

    from seqspectral.cli import main as main_module

    main_module._show_warning(warnings.WarningMessage(UserWarning("two\nlines"), UserWarning, "x.py", 3).message,
                              UserWarning, "x.py", 3)
    err = capsys.readouterr().err
    assert err == "seqspectral: warning: two lines\n"


@pytest.mark.parametrize("wrong", ["tagger", "lm"])
def test_a_model_of_another_kind_as_tree_model_is_exit_2_by_kind(tmp_path, capsys, tagger, wrong):
    model = tagger
    if wrong == "lm":
        model = tmp_path / "lm.npz"
        run(capsys, "lm", "train", TRAIN, "--method", "ngram", "-o", model, "--quiet", status=0)
    nbest = tmp_path / "n.conllu"
    run(capsys, "tag", "run", tagger, TRAIN, "-k", "2", "-o", nbest, "--quiet", status=0)
    err = run(capsys, "rerank", "train", nbest, "--gold", TRAIN, "--tree-model", model, "-o", tmp_path / "r.npz",
              status=2)
    assert "expected 'spectral_tree_model' or 'em_tree_model'" in err


def test_em_on_valid_data_is_not_refused(tmp_path, capsys):
    """The refit adds the held-out part, whose symbols the fit part may lack."""
    run(capsys, "lm", "train", TRAIN, "--method", "em", "--states", "4", "--random-state", "7", "-o",
        tmp_path / "m.npz", "--quiet", status=0)


def test_a_reranker_given_lists_of_the_other_kind_is_exit_2(tmp_path, capsys, tagger):
    small = tmp_path / "small.conllu"
    small.write_text("\n\n".join(TRAIN.read_text().split("\n\n")[:30]) + "\n\n")
    parser, lm = tmp_path / "p.npz", tmp_path / "lm.npz"
    run(capsys, "parse", "train", small, "--epochs", "1", "--hash-bits", "10", "-o", parser, "--quiet", status=0)
    run(capsys, "lm", "train", small, "--method", "ngram", "-o", lm, "--quiet", status=0)
    tags, parses = tmp_path / "tags.nbest", tmp_path / "parses.nbest"
    run(capsys, "tag", "run", tagger, small, "-k", "3", "-o", tags, "--quiet", status=0)
    run(capsys, "parse", "run", parser, small, "-k", "3", "-o", parses, "--quiet", status=0)
    reranker = tmp_path / "r.npz"
    run(capsys, "rerank", "train", tags, "--gold", small, "--candidates", "tags", "--lm", lm, "--epochs", "1",
        "-o", reranker, "--quiet", status=0)
    err = run(capsys, "rerank", "apply", reranker, parses, "--lm", lm, "-o", tmp_path / "o", status=2)
    assert "parses.nbest: n-best list" in err and "ranks parses" in err and "this reranker ranks tags" in err
    err = run(capsys, "rerank", "train", tags, "--gold", small, "--epochs", "1", "-o", tmp_path / "o", status=2)
    assert "tags.nbest: n-best list" in err and "ranks tag sequences" in err and "this reranker ranks parses" in err
