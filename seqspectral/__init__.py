"""seqspectral: method-of-moments learning of latent-variable models of sequences and trees."""

import os as _os

__version__ = "0.1.0"

# Numba's OpenMP threads sleep between parallel regions rather than spin (GNU libgomp's default
# is to spin): on a busy machine the spinning threads take CPU from the working ones, and a
# 10-best parse of 150 sentences took 3.1 s instead of 0.6 (docs/speed.md, "Threads on a busy
# machine"). A value the user set is kept; it applies if no OpenMP runtime started before.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
