# SPDX-License-Identifier: Apache-2.0
"""Optional modules (matplotlib, distributed) and matplotlib set up for files (Agg)."""
import os
import sys

# A python3 first on PATH (pyenv, venv) may lack Debian's packages; /usr/bin/python3 has them
# (scripts/setup installs them).
SYSTEM_PYTHON = "/usr/bin/python3"
PACKAGES = {"matplotlib": "python3-matplotlib", "distributed": "python3-distributed",
            "pandas": "python3-pandas"}
_REEXEC = "RNICSIM_PY_REEXEC"  # set once we re-ran: never loop


class MissingModules(Exception):
    """A module a tool needs is importable neither here nor under /usr/bin/python3."""


def need(modules):
    """Makes sure `modules` import: when one does not, re-runs the running script once under
    Debian's /usr/bin/python3 (same argv; does not return), else raises MissingModules."""
    missing = []
    for name in modules:
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if not missing:
        return
    if (os.environ.get(_REEXEC) != "1" and os.path.exists(SYSTEM_PYTHON)
            and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)):
        os.environ[_REEXEC] = "1"
        sys.stdout.flush()
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(sys.argv[0])] + sys.argv[1:])
    raise MissingModules("missing Python module(s) " + ", ".join(missing) + " (install "
                         + " ".join(PACKAGES.get(m, m) for m in missing)
                         + ", or run scripts/setup)")


def pyplot():
    """matplotlib.pyplot drawing to files only (Agg: no display needed)."""
    need(["matplotlib"])
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
