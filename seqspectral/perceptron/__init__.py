"""The averaged perceptron under the parser, the label classifier, the tagger and the
reranker: feature hashing (:mod:`.hashing`), averaged weight vectors (:mod:`.weights`) and
the epoch loop with its held-out choice of the number of epochs (:mod:`.epochs`)."""

from .epochs import EpochRun, HeldOut, epoch_selection, member_generators, train_epochs
from .weights import AveragedWeights, UsedRows, dense_from_state, sparse_schema, sparse_state

__all__ = ["AveragedWeights", "EpochRun", "HeldOut", "UsedRows", "dense_from_state", "epoch_selection", "member_generators",
           "sparse_schema", "sparse_state", "train_epochs"]
