"""N-best CoNLL-U lists (DESIGN.md): writer and reader."""

from dataclasses import replace

import numpy as np
import pytest

from seqspectral.corpus import CorpusFormatError, NBestList, read_conllu, read_nbest, write_nbest


def candidates(sentence, k):
    """k variants of ``sentence``: the gold tree, then star trees rooted at words 1, 2, ..."""
    out = [sentence]
    for j in range(1, k):
        root = (j - 1) % len(sentence) + 1
        heads = np.full(len(sentence), root, dtype=np.int32)
        heads[root - 1] = 0
        out.append(replace(sentence, heads=heads))
    return out


def test_round_trip(corpora_dir, tmp_path):
    gold = read_conllu(corpora_dir / "ewt-sample-dev.conllu")[:10]
    lists = [
        NBestList(s.metadata["sent_id"], candidates(s, 3), [-1.5, -2.0, -7.25]) for s in gold
    ]
    path = tmp_path / "nbest.conllu"
    write_nbest(path, lists)
    text = path.read_text()
    assert text.count("# nbest_rank = 1\n") == 10 and text.count("# nbest_rank = 3\n") == 10
    back = read_nbest(path)
    assert [b.sent_id for b in back] == [s.metadata["sent_id"] for s in gold]
    for b, a in zip(back, lists):
        assert b.candidates == [
            replace(c, metadata={k: v for k, v in c.metadata.items() if k != "sent_id"}) for c in a.candidates
        ]
        assert [c.heads.tolist() for c in b.candidates] == [c.heads.tolist() for c in a.candidates]
        assert b.scores.tolist() == [-1.5, -2.0, -7.25]
    # the plain CoNLL-U reader sees every candidate as a sentence
    assert len(read_conllu(path)) == 30


@pytest.mark.parametrize(
    "header, message",
    [
        ("# sent_id = a\n# nbest_rank = 2\n# nbest_score = 0\n", "nbest_rank 2 where 1"),
        ("# sent_id = a\n# nbest_score = 0\n", "without # nbest_rank"),
        ("# sent_id = a\n# nbest_rank = one\n# nbest_score = 0\n", "integer"),
    ],
)
def test_malformed_lists(tmp_path, header, message):
    path = tmp_path / "bad.conllu"
    path.write_text(header + "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n")
    with pytest.raises(CorpusFormatError, match=message) as info:
        read_nbest(path)
    assert info.value.line == 1
