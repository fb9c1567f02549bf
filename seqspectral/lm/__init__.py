"""Language models behind ``seqspectral lm``: the methods (``methods``), n-grams (``ngram``),
mixtures (``mixture``), unknown symbols (``unknown``), training with selection and
evaluation (``training``), training on shards counted where they lie (``sharded``) and the
trained model with its file (``trained``)."""

from .methods import METHODS, make_estimator
from .mixture import Interpolated
from .ngram import NGramLM
from .trained import TrainedLM, load_lm, save_lm
from .training import LanguageModelError, evaluate_lm, train_lm
from .sharded import LMCounts, train_lm_sharded
from .unknown import UnknownEscape, unseen_mass

__all__ = ["METHODS", "Interpolated", "LanguageModelError", "NGramLM", "TrainedLM", "UnknownEscape", "evaluate_lm",
           "LMCounts", "load_lm", "make_estimator", "save_lm", "train_lm", "train_lm_sharded", "unseen_mass"]
