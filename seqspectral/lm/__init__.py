"""Language models behind ``seqspectral lm``: the methods (``methods``), n-grams (``ngram``),
mixtures (``mixture``), unknown symbols (``unknown``), training with selection and
evaluation (``training``), training on shards counted where they lie (``sharded``) and the
trained model with its file (``trained``)."""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (seqspectral.exports)

from seqspectral.exports import lazy_exports

if TYPE_CHECKING:  # the exported names, each imported when first used (seqspectral.exports)
    from .methods import METHODS, make_estimator
    from .mixture import Interpolated
    from .ngram import NGramLM
    from .sharded import LMCounts, train_lm_sharded
    from .trained import TrainedLM, load_lm, save_lm
    from .training import LanguageModelError, evaluate_lm, train_lm
    from .unknown import UnknownEscape, unseen_mass

__all__ = ["METHODS", "Interpolated", "LanguageModelError", "NGramLM", "TrainedLM", "UnknownEscape", "evaluate_lm",
           "LMCounts", "load_lm", "make_estimator", "save_lm", "train_lm", "train_lm_sharded", "unseen_mass"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)
