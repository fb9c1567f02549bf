"""OpenMP's threads wait asleep unless the user chose otherwise (docs/speed.md, "Threads on a
busy machine"): the setting is made by ``import seqspectral``, before any OpenMP runtime starts."""

import os
import subprocess
import sys

import pytest

PROGRAM = "import os, seqspectral; print(os.environ['OMP_WAIT_POLICY'])"


@pytest.mark.parametrize("given, seen", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_openmp_threads_sleep_while_they_wait_unless_the_user_says(given, seen):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == seen
