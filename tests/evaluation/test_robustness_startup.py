"""The battery's reading of a start-up interrupt (evaluation/robustness.startup_phase): what
Python took before the entry module's handler is counted apart by phase; a traceback through
the toolkit's own code is the toolkit's (a failure)."""

from __future__ import annotations

import signal

from evaluation.robustness import REPO, startup_phase

SCRIPT_IMPORT = """Traceback (most recent call last):
  File "/venv/bin/seqspectral", line 5, in <module>
    from seqspectral.cli.main import main
  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load
  File "<frozen importlib._bootstrap>", line 1138, in _find_and_load_unlocked
KeyboardInterrupt
"""
TOOLKIT = f"""Traceback (most recent call last):
  File "/venv/bin/seqspectral", line 5, in <module>
    from seqspectral.cli.main import main
  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load
  File "{REPO}/cli/main.py", line 42, in <module>
    import signal
  File "/usr/lib/python3.11/enum.py", line 500, in __new__
KeyboardInterrupt
"""


def test_each_phase_python_takes_is_named_and_the_toolkits_own_code_is_not():
    assert startup_phase(-signal.SIGINT, "") == "killed"
    assert startup_phase(1, "Fatal Python error: init_sys_streams: can't initialize sys standard streams\n") == "init"
    assert startup_phase(1, "Fatal Python error: init_import_site: Failed to import the site module\n...") == "site"
    assert startup_phase(-signal.SIGINT, SCRIPT_IMPORT) == "import"
    assert startup_phase(0, "Exception ignored in: <function _get_module_lock.<locals>.cb at 0x7f>\n") == "lost"
    assert startup_phase(1, "KeyboardInterrupt\n") == "no frame"  # seen 1 in 300 SIGINTs at 15-27 ms
    assert startup_phase(1, TOOLKIT) is None and startup_phase(1, "KeyboardInterrupt\nmore\n") is None
    assert startup_phase(-signal.SIGINT, TOOLKIT) is None  # the entry module ran before its handler: a failure
    assert startup_phase(130, "seqspectral: interrupted (SIGINT)\n") is None
