#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest tools/pip-install: the Python package installs as README.md says, offline, and works
from outside the source tree.

usage: check_pip_install.py RNICSIM SOURCE_DIR WORK_DIR

1. Runs README.md's install line (the one line of its code blocks with `pip install`) as
   written, from the top of the source tree, in bash, with HOME set to a fresh folder (the
   line makes its virtualenv under ~) and pip barred from any package index
   (PIP_NO_INDEX=1): the install must need nothing but Debian's packages.
2. In that virtualenv, from a folder outside the tree: `import rnicsim` is the installed copy,
   rnicsim.ROOT is the checkout recorded at install time, find_rnicsim() finds the build there
   ($RNICSIM_BUILD_DIR) or takes $RNICSIM, run() runs tests/tools/tiny.json (200 DMA reads of
   1 KiB) and stats_rows() gives its statistics with units.
3. The same package installed from a copy of scripts/python outside any checkout: ROOT is
   None, the binary comes from PATH, and without one find_rnicsim() says what to do.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

RNICSIM, ROOT, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
TINY = os.path.join(ROOT, "tests", "tools", "tiny.json")


def fail(message):
    print(f"pip-install: FAIL: {message}")
    sys.exit(1)


def install_line():
    """The README's install line: the one line of a fenced code block with `pip install`."""
    with open(os.path.join(ROOT, "README.md")) as f:
        blocks = re.findall(r"^```[^\n]*\n(.*?)^```", f.read(), re.M | re.S)
    lines = [line for block in blocks for line in block.splitlines() if "pip install" in line]
    if len(lines) != 1:
        fail(f"README.md has {len(lines)} code lines with `pip install`, expected one: {lines}")
    return lines[0].strip()


def environment(home, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "RNICSIM", "RNICSIM_BUILD_DIR", "VIRTUAL_ENV",
                        "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS")}
    # `python3` is the interpreter ctest runs (Debian's: scripts/setup points CMake at it), not
    # one that comes first on PATH (pyenv); pip may not reach any index.
    env.update(HOME=home, PATH=os.path.dirname(sys.executable) + os.pathsep + env["PATH"],
               PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    env.update(extra)
    return env


def run(cmd, cwd, env, what):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=240)
    if proc.returncode != 0:
        fail(f"{what}: exit {proc.returncode}\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return proc.stdout


def find_python(home):
    """The virtualenv's python3: the one interpreter under HOME the install line made."""
    found = [os.path.join(d, "python3") for d, _, files in os.walk(home)
             if "python3" in files and os.path.basename(d) == "bin"]
    if len(found) != 1:
        fail(f"expected one virtualenv under {home} after the install line, found {found}")
    return found[0]


# What the installed package must do, run by the virtualenv's python3 outside the tree.
IN_CHECKOUT = r"""
import os, sys
import rnicsim
venv, root, exe, tiny = sys.argv[1:5]
assert os.path.realpath(rnicsim.__file__).startswith(venv + os.sep), rnicsim.__file__
assert os.path.realpath(rnicsim.ROOT) == os.path.realpath(root), (rnicsim.ROOT, root)
os.environ["RNICSIM_BUILD_DIR"] = os.path.dirname(exe)
assert rnicsim.find_rnicsim(build=False) == exe, rnicsim.find_rnicsim(build=False)
del os.environ["RNICSIM_BUILD_DIR"]
os.environ["RNICSIM"] = exe
r = rnicsim.run(tiny, set={"pcie.mrrs": 256})
assert r["config"]["pcie.mrrs"] == 256 and r.metrics()["ops"] == 200, r.metrics()
rows = {(x["node"], x["unit"], x["statistic"]): x for x in r.stats_rows()}
reads = rows[("A", "memory", "dev_reads")]
assert reads["value"] > 0 and reads["unit_of_measure"] == "transactions", reads
p50 = rows[("A", "rnic.dma_read", "request_latency_ns.p50")]
assert p50["value"] > 0 and p50["unit_of_measure"] == "ns", p50
print(f"in checkout: rnicsim {rnicsim.__file__}, ROOT {rnicsim.ROOT}, "
      f"{r.metrics()['ops']:.0f} ops, dev_reads {reads['value']}, "
      f"request p50 {p50['value']} ns, {len(rows)} stat rows")
"""

NO_CHECKOUT = r"""
import os, sys
import rnicsim
exe = sys.argv[1]
assert rnicsim.ROOT is None, rnicsim.ROOT
try:
    rnicsim.find_rnicsim()
    raise AssertionError("found a binary with none on PATH")
except rnicsim.BuildError as e:
    assert "RNICSIM" in str(e) and "PATH" in str(e), e
    said = str(e)
os.environ["PATH"] = os.path.dirname(exe) + os.pathsep + os.environ["PATH"]
assert rnicsim.find_rnicsim() == exe, rnicsim.find_rnicsim()
r = rnicsim.run(sys.argv[2])
assert r.metrics()["ops"] == 200, r.metrics()
print(f"no checkout: ROOT None, without a binary: {said}; "
      f"rnicsim from PATH ran {r.metrics()['ops']:.0f} ops")
"""


def main():
    line = install_line()
    print(f"install line: {line}")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    outside = tempfile.mkdtemp(dir=WORK, prefix="cwd-")

    # 1 and 2: the README's line, then the package from outside the tree.
    home = os.path.join(WORK, "home")
    os.makedirs(home)
    env = environment(home)
    run(["bash", "-euo", "pipefail", "-c", line], ROOT, env, "the README's install line")
    python = find_python(home)
    venv = os.path.dirname(os.path.dirname(python))
    print(run([python, "-c", IN_CHECKOUT, os.path.realpath(venv), ROOT, RNICSIM, TINY],
              outside, env, "the installed package").strip())
    # setup.py builds in a temporary folder: no build/ or egg-info left beside it.
    left = [n for n in os.listdir(os.path.join(ROOT, "scripts", "python"))
            if n == "build" or n.endswith(".egg-info")]
    if left:
        fail(f"the install left {left} in the source tree's scripts/python")

    # 3: installed from a copy outside any checkout (a PATH of its own with only the
    # interpreter's folder, so that no rnicsim on the machine's PATH is found).
    copy = os.path.join(WORK, "copy")
    shutil.copytree(os.path.join(ROOT, "scripts", "python"), copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    bare = os.path.join(WORK, "bare")
    run([sys.executable, "-m", "venv", "--system-site-packages", bare], outside, env,
        "python3 -m venv")
    run([os.path.join(bare, "bin", "pip"), "install", "--no-build-isolation", copy], outside,
        env, "pip install of a copy of scripts/python")
    lone = environment(home, PATH=os.path.dirname(sys.executable))
    print(run([os.path.join(bare, "bin", "python3"), "-c", NO_CHECKOUT, RNICSIM, TINY],
              outside, lone, "the package installed from a copy").strip())
    print("pip-install: PASS")


if __name__ == "__main__":
    main()
