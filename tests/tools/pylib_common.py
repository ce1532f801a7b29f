# SPDX-License-Identifier: Apache-2.0
"""What the test_pylib_*.py files share: their command line (RNICSIM SOURCE_DIR, then
unittest's options), the package on sys.path, tiny.json. Imported first, before rnicsim."""
import json
import os
import sys

RNICSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
del sys.argv[1:3]  # the rest is unittest's
sys.path.insert(0, os.path.join(ROOT, "scripts", "python"))

TINY = os.path.join(ROOT, "tests", "tools", "tiny.json")  # one dma_bench step: 200 x 1024 B


def tiny():
    with open(TINY) as f:
        return json.load(f)


def load_sweep():
    """The sweep's parts (scripts/sweep is their command line)."""
    from rnicsim import sweep
    return sweep
