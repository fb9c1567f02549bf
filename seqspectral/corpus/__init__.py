"""Vocabulary, flat corpora, dependency trees, readers and writers."""

from .conllu_format import read_conllu, read_conllu_corpus, write_conllu
from .conllx import read_conllx, read_malttab
from .errors import CorpusFormatError, SkippedRecordsWarning
from .nbest import NBestList, read_nbest, write_nbest
from .pautomac import read_pautomac, read_pautomac_solution, write_pautomac, write_pautomac_solution
from .readers import FORMATS, detect_format, read_corpus
from .sentence import Sentence, corpus_from_sentences
from .sequences import Corpus
from .tagsets import UNIVERSAL12, tag_mapping
from .text import read_text, write_text
from .trees import DependencyTree, head_errors, invalid_trees, is_projective
from .vocabulary import EOS, UNK, Vocabulary

__all__ = [
    "FORMATS",
    "UNIVERSAL12",
    "Corpus",
    "CorpusFormatError",
    "DependencyTree",
    "EOS",
    "NBestList",
    "Sentence",
    "SkippedRecordsWarning",
    "UNK",
    "Vocabulary",
    "corpus_from_sentences",
    "detect_format",
    "head_errors",
    "invalid_trees",
    "is_projective",
    "read_conllu",
    "read_conllu_corpus",
    "read_conllx",
    "read_corpus",
    "read_malttab",
    "read_nbest",
    "read_pautomac",
    "read_pautomac_solution",
    "read_text",
    "tag_mapping",
    "write_conllu",
    "write_nbest",
    "write_pautomac",
    "write_pautomac_solution",
    "write_text",
]
