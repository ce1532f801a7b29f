# SPDX-License-Identifier: Apache-2.0
"""Finding (and if need be building) the rnicsim binary, and calling it."""
import os
import subprocess
import sys

from .errors import BuildError, RnicsimNotFound  # noqa: F401 (RnicsimNotFound: the old name)

# scripts/python/rnicsim/binary.py -> the source tree.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))))


def env():
    """The environment every rnicsim call runs in (no SystemC banner on stdout)."""
    return dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")


def build_dir():
    return os.environ.get("RNICSIM_BUILD_DIR") or os.path.join(ROOT, "build")


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
    4. when `build` is true, builds it with `scripts/setup --build rnicsim` (the simulator
       alone, not the tests; saying so on stderr).

    Raises BuildError (alias RnicsimNotFound) when a named binary is missing or the build
    fails.
    """
    if explicit:
        return _usable(explicit, "--rnicsim")
    if os.environ.get("RNICSIM"):
        return _usable(os.environ["RNICSIM"], "$RNICSIM")
    exe = _built(build_dir())
    if exe or not build:
        if exe:
            return exe
        raise BuildError(f"no rnicsim binary in {build_dir()} (build it: scripts/setup "
                         "--build, or give --rnicsim PATH / RNICSIM)")
    print(f"rnicsim: no binary in {build_dir()}: building it (scripts/setup --build rnicsim)",
          file=sys.stderr)
    # Quiet build; its log only on failure (scripts/rnicsim does the same).
    setup = os.path.join(ROOT, "scripts", "setup")
    try:
        proc = subprocess.run([setup, "--build", "rnicsim"], capture_output=True, text=True)
    except OSError as e:
        raise BuildError(f"cannot run {setup}: {e.strerror or e}") from e
    exe = _built(build_dir())
    if proc.returncode != 0 or not exe:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise BuildError("build failed (scripts/setup --build rnicsim)")
    return exe


def call(rnicsim, *args):
    """stdout of `rnicsim ARGS...`; raises subprocess.CalledProcessError on a non-zero exit."""
    return subprocess.run([rnicsim, *args], check=True, capture_output=True, text=True,
                          env=env()).stdout
