#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest tools/pylib-builder: the rnicsim Python package (scripts/python/rnicsim) on the built
binary: rnicsim.Scenario, the scenario builder (the footprint example is the
exploration it stands for).

usage: test_pylib_builder.py RNICSIM SOURCE_DIR [unittest options]
"""
import json
import os
import sys
import tempfile
import unittest

# First: it takes RNICSIM SOURCE_DIR off the command line and puts the package on sys.path.
from pylib_common import RNICSIM, ROOT

import rnicsim
from rnicsim import binary


class Builder(unittest.TestCase):
    def test_footprint_example_is_the_exploration(self):
        sys.path.insert(0, os.path.join(ROOT, "scripts", "python", "examples"))
        try:
            import footprint
        finally:
            sys.path.pop(0)
        built = footprint.footprint(1 << 20).to_dict()
        with open(os.path.join(ROOT, "scenarios", "explore", "mtt-footprint.json")) as f:
            expected = json.load(f)
        expected.pop("description")
        self.assertEqual(built, expected)

    def test_loop_validates_and_runs(self):
        s = rnicsim.Scenario("regions", description="reads over four regions",
                             config={"monitor.enabled": 0})
        p = s.two_nodes(remote_size=4 << 20)
        for region in range(4):  # the loop the JSON format has not
            s.read_stream(p.qp, count=50, size=256, sgl=(p.local_mr, 0), remote=p.remote_mr,
                          remote_offset=region << 20, span=1 << 20, pattern="sequential")
        self.assertTrue(s.validate(rnicsim=RNICSIM))
        data = s.to_dict()
        self.assertEqual(data["config"], {"set": {"monitor.enabled": 0}})
        self.assertEqual([st["remote"]["offset"] for st in data["steps"]
                          if st["op"] == "read_stream"], [0, 1 << 20, 2 << 20, 3 << 20])
        r = s.run(rnicsim=RNICSIM, set={"pcie.mrrs": 256})
        self.assertEqual(len(r.workload_metrics()), 4)
        self.assertTrue(all(m["ops"] == 50 and m["bytes"] == 50 * 256
                            for m in r.workload_metrics()))
        with tempfile.TemporaryDirectory() as tmp:
            path = s.write(os.path.join(tmp, "regions.json"))
            with open(path) as f:
                self.assertEqual(json.load(f), data)
            self.assertIn("valid", binary.call(RNICSIM, "validate", path))

    def test_dma_bench_and_invalid(self):
        s = rnicsim.Scenario("bench")
        step = s.dma_bench("A", size=512, count=100)
        self.assertEqual(s.index(step), 0)
        self.assertEqual(s.run(rnicsim=RNICSIM).metrics()["bytes"], 512 * 100)
        bad = rnicsim.Scenario("bad")
        bad.read_stream("qpNope", count=1, size=64, sgl="mrA", remote="mrB")
        with self.assertRaises(rnicsim.ValidationError) as caught:
            bad.validate(rnicsim=RNICSIM)
        self.assertIn("qpNope", caught.exception.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
