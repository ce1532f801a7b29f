# SPDX-License-Identifier: Apache-2.0
"""What pyproject.toml cannot say: the version (CMakeLists.txt's project() VERSION, one source)
and the checkout the package is installed from. An installed copy lies outside the source
tree, so build_py writes rnicsim/_checkout.py (ROOT = the checkout) into it: rnicsim.ROOT and
find_rnicsim() then find build/rnicsim, scripts/setup and scenarios/ there. Only when this
directory is scripts/python of a checkout (pip builds a local directory in place); a wheel
built elsewhere records nothing. Build files go to a temporary folder, not into the tree."""
import atexit
import os
import re
import shutil
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(os.path.dirname(HERE))


def checkout():
    ok = os.path.isfile(os.path.join(CHECKOUT, "scripts", "setup")) and \
        os.path.isfile(os.path.join(CHECKOUT, "CMakeLists.txt"))
    return CHECKOUT if ok else None


def version():
    try:
        with open(os.path.join(CHECKOUT, "CMakeLists.txt")) as f:
            found = re.search(r"project\(rnicsim\s+VERSION\s+([0-9.]+)", f.read())
    except OSError:
        found = None
    return found.group(1) if found else "0"


class BuildWithCheckout(build_py):
    def run(self):
        super().run()
        root = checkout()
        if root:
            path = os.path.join(self.build_lib, "rnicsim", "_checkout.py")
            with open(path, "w") as f:
                f.write("# Written by scripts/python/setup.py at install time.\n"
                        f"ROOT = {root!r}\n")


# setuptools' build/ (with stale copies of removed files) and egg-info stay out of the tree.
BUILD = tempfile.mkdtemp(prefix="rnicsim-pybuild-")
atexit.register(shutil.rmtree, BUILD, True)

setup(version=version(), cmdclass={"build_py": BuildWithCheckout},
      options={"build": {"build_base": BUILD}, "egg_info": {"egg_base": BUILD}})
