"""The workflows layer: from files to models and back, between the models and the command
line (``cli/`` and ``evaluation/`` call it; nothing below it does).

- :mod:`.reading`: the one way sentences are read (:func:`read_sentences`), notes and
  warnings returned as data, inputs of the wrong kind refused;
- :mod:`.training`: training from files (lm, tree, embed, parse, tag), the model's
  ``reading_`` set as part of training;
- :mod:`.stages`, :mod:`.rerank_build`: ``rerank build`` as stages that declare the names
  they require and provide; :mod:`.manifest`: the build directory's ``build.json``, read
  one validated way; :mod:`.options`: the build's options and bounds;
- :mod:`.pipeline`: :class:`Pipeline`, one object for a whole pipeline (a build directory or
  one model file) run on raw text, sentences or files as ``rerank run`` runs them.
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (seqspectral.exports)

from seqspectral.exports import lazy_exports

# the exported names, each imported when first used (seqspectral.exports): training a language
# model or embeddings imports no tagger, parser or reranker
if TYPE_CHECKING:
    from .options import BuildOptions
    from .pipeline import MissingColumnError, Pipeline
    from .reading import InputError, read_sentences
    from .rerank_build import build

__all__ = ["BuildOptions", "InputError", "MissingColumnError", "Pipeline", "build", "read_sentences"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)
