# SPDX-License-Identifier: Apache-2.0
"""Finding (and if need be building) the rnicsim binary, and calling it."""
import os
import shutil
import subprocess
import sys

from .errors import BuildError, RnicsimNotFound  # noqa: F401 (RnicsimNotFound: the old name)


def _checkout(path):
    """`path` if it is an rnicsim source tree (scripts/setup and the package's sources), else
    None."""
    if path and os.path.isfile(os.path.join(path, "scripts", "setup")) and os.path.isfile(
            os.path.join(path, "scripts", "python", "rnicsim", "binary.py")):
        return path
    return None


def _recorded():
    """The checkout `pip install ./scripts/python` was run from (scripts/python/setup.py writes
    it into the installed copy as _checkout.py); None in the source tree or when unknown."""
    try:
        from ._checkout import ROOT as recorded
    except ImportError:
        return None
    return recorded


# The source tree: the one this file lies in (scripts/python/rnicsim/binary.py; also an
# editable install), else the checkout an installed copy was installed from, if it is still
# there; None when neither (an installed copy that knows no checkout: then only --rnicsim,
# $RNICSIM or `rnicsim` on PATH give a binary).
ROOT = _checkout(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))) or _checkout(_recorded())


def env():
    """The environment every rnicsim call runs in (no SystemC banner on stdout)."""
    return dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")


def build_dir():
    """$RNICSIM_BUILD_DIR, else build/ of the source tree (None when there is none)."""
    if os.environ.get("RNICSIM_BUILD_DIR"):
        return os.environ["RNICSIM_BUILD_DIR"]
    return os.path.join(ROOT, "build") if ROOT else None


def _built(build):
    exe = os.path.join(build, "rnicsim")  # app/CMakeLists.txt puts it at the top of the tree
    return exe if os.path.isfile(exe) and os.access(exe, os.X_OK) else None


def _usable(path, what):
    path = os.path.abspath(path)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise BuildError(f"no rnicsim binary at {path} ({what})")
    return path


def find_rnicsim(explicit=None, build=True):
    """The rnicsim binary to use, as an absolute path:

    1. `explicit` (a --rnicsim PATH), else
    2. the RNICSIM environment variable, else
    3. BUILD/rnicsim (BUILD: $RNICSIM_BUILD_DIR, default build/ of the source tree), else
    4. with no source tree (an installed copy that knows no checkout): `rnicsim` on PATH, else
    5. when `build` is true and there is a source tree, builds it with
       `scripts/setup --build rnicsim` (the simulator alone, not the tests; saying so on
       stderr).

    Raises BuildError (alias RnicsimNotFound) when a named binary is missing or the build
    fails.
    """
    if explicit:
        return _usable(explicit, "--rnicsim")
    if os.environ.get("RNICSIM"):
        return _usable(os.environ["RNICSIM"], "$RNICSIM")
    build_tree = build_dir()
    exe = _built(build_tree) if build_tree else None
    if exe:
        return exe
    if not ROOT:
        on_path = shutil.which("rnicsim")
        if on_path:
            return os.path.abspath(on_path)
        where = f" in {build_tree} or" if build_tree else ""
        raise BuildError(f"no rnicsim binary{where} on PATH: give --rnicsim PATH or set "
                         "RNICSIM (this installed copy knows no rnicsim checkout to build "
                         "one in: install it with pip install ./scripts/python from one)")
    if not build:
        raise BuildError(f"no rnicsim binary in {build_tree} (build it: scripts/setup "
                         "--build, or give --rnicsim PATH / RNICSIM)")
    print(f"rnicsim: no binary in {build_tree}: building it (scripts/setup --build rnicsim)",
          file=sys.stderr)
    # Quiet build; its log only on failure (scripts/rnicsim does the same).
    setup = os.path.join(ROOT, "scripts", "setup")
    try:
        proc = subprocess.run([setup, "--build", "rnicsim"], capture_output=True, text=True)
    except OSError as e:
        raise BuildError(f"cannot run {setup}: {e.strerror or e}") from e
    exe = _built(build_tree)
    if proc.returncode != 0 or not exe:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise BuildError("build failed (scripts/setup --build rnicsim)")
    return exe


def call(rnicsim, *args):
    """stdout of `rnicsim ARGS...`; raises subprocess.CalledProcessError on a non-zero exit."""
    return subprocess.run([rnicsim, *args], check=True, capture_output=True, text=True,
                          env=env()).stdout
