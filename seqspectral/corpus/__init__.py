"""Vocabulary, flat corpora, dependency trees, readers and writers."""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (seqspectral.exports)

from seqspectral.exports import lazy_exports

if TYPE_CHECKING:  # the exported names, each imported when first used (seqspectral.exports)
    from .conllu_format import read_conllu, read_conllu_corpus
    from .conllx import read_conllx, read_malttab
    from .dependency_trees import DependencyTree, head_errors, invalid_trees, is_projective, nonprojective
    from .description import describe
    from .errors import CorpusFormatError, CorpusWarning, SeveralRootsWarning, SkippedRecordsWarning
    from .formats import Format, format_names, get_format, register
    from .nbest import NBestList, iter_nbest, read_nbest, write_nbest
    from .options import FIELDS
    from .pautomac import iter_pautomac, read_pautomac, read_pautomac_solution, write_pautomac, write_pautomac_solution
    from .readers import Detection, detect, detect_format, read_corpus
    from .reading import Reading
    from .sentence import Sentence, corpus_from_sentences
    from .sequences import Corpus
    from .tagsets import UNIVERSAL12, tag_mapping
    from .text import read_text, write_text
    from .textfile import DEFAULT_ENCODING
    from .vocabulary import EOS, UNK, Vocabulary
    from .writer import write_conllu, write_treebank

__all__ = [
    "DEFAULT_ENCODING",
    "FIELDS",
    "UNIVERSAL12",
    "Corpus",
    "CorpusFormatError",
    "CorpusWarning",
    "Detection",
    "Format",
    "DependencyTree",
    "EOS",
    "NBestList",
    "Reading",
    "Sentence",
    "SeveralRootsWarning",
    "SkippedRecordsWarning",
    "UNK",
    "Vocabulary",
    "corpus_from_sentences",
    "describe",
    "detect",
    "detect_format",
    "format_names",
    "get_format",
    "head_errors",
    "invalid_trees",
    "is_projective",
    "iter_pautomac",
    "nonprojective",
    "read_conllu",
    "read_conllu_corpus",
    "read_conllx",
    "read_corpus",
    "read_malttab",
    "iter_nbest",
    "read_nbest",
    "read_pautomac",
    "read_pautomac_solution",
    "read_text",
    "register",
    "tag_mapping",
    "write_conllu",
    "write_nbest",
    "write_pautomac",
    "write_pautomac_solution",
    "write_text",
    "write_treebank",
]

__getattr__, __dir__ = lazy_exports(__name__, __file__)
