#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest tools/pylib: the rnicsim Python package (scripts/python/rnicsim) on the built binary.

usage: test_pylib.py RNICSIM SOURCE_DIR [unittest options]
"""
import json
import os
import stat
import sys
import tempfile
import unittest
from unittest import mock

RNICSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
del sys.argv[1:3]  # the rest is unittest's
sys.path.insert(0, os.path.join(ROOT, "scripts", "python"))
import rnicsim  # noqa: E402
from rnicsim import binary, cli, markdown, plots  # noqa: E402
from rnicsim.results import workload_indices  # noqa: E402

TINY = os.path.join(ROOT, "tests", "tools", "tiny.json")  # one dma_bench step: 200 x 1024 B


def tiny():
    with open(TINY) as f:
        return json.load(f)


class Run(unittest.TestCase):
    def test_path_with_set_and_seed(self):
        r = rnicsim.run(TINY, set={"pcie.mrrs": 256}, seed=7, rnicsim=RNICSIM)
        self.assertIsInstance(r, dict)
        self.assertEqual(r.exit_code, 0)
        self.assertTrue(r.passed)
        self.assertEqual(r["config"]["pcie.mrrs"], 256)  # the --set reached the simulator
        self.assertEqual(r["seed"], 7)
        self.assertGreater(r["sim_ns"], 0)
        m = r.metrics()
        self.assertEqual(m["ops"], 200)
        self.assertEqual(m["bytes"], 200 * 1024)
        self.assertGreater(m["gbps"], 0)
        self.assertEqual(r.metrics(0), m)

    def test_dict_scenario(self):
        data = tiny()
        data["steps"][0]["size"] = 64
        before = json.dumps(data, sort_keys=True)
        r = rnicsim.run(data, rnicsim=RNICSIM)
        self.assertEqual(r.metrics()["bytes"], 200 * 64)
        self.assertEqual(json.dumps(data, sort_keys=True), before)  # the caller's dict is kept

    def test_env_variable_finds_binary(self):
        with mock.patch.dict(os.environ, {"RNICSIM": RNICSIM}):
            self.assertEqual(rnicsim.run(TINY)["steps"][0]["op"], "dma_bench")

    def test_bad_scenario_raises_or_reports(self):
        data = tiny()
        data["steps"][0]["size"] = -1
        with self.assertRaises(rnicsim.RunError) as caught:
            rnicsim.run(data, rnicsim=RNICSIM)
        self.assertEqual(caught.exception.exit_code, 2)
        self.assertIn("size", caught.exception.stderr)
        self.assertIn("sweep-tiny.json", caught.exception.stderr)  # named, not a temp path
        r = rnicsim.run(data, rnicsim=RNICSIM, check=False)
        self.assertEqual(r.exit_code, 2)
        self.assertFalse(r.passed)
        self.assertEqual(dict(r), {})

    def test_bad_config_value(self):
        with self.assertRaises(rnicsim.RunError) as caught:
            rnicsim.run(TINY, set=["pcie.mrrs=100"], rnicsim=RNICSIM)
        self.assertIn("pcie.mrrs", str(caught.exception))


class ResultsAccess(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = rnicsim.run(TINY, rnicsim=RNICSIM)

    def test_dict_like(self):
        r = self.r
        self.assertEqual(set(r) >= {"config", "stats", "steps", "sim_ns", "nodes"}, True)
        self.assertEqual(json.loads(json.dumps(r))["sim_ns"], r["sim_ns"])
        self.assertEqual(r["nodes"], ["A", "B"])
        self.assertIsNotNone(r.wall_s)

    def test_workload_metrics(self):
        rows = self.r.workload_metrics()
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["index"], 0)
        self.assertEqual(rows[0]["op"], "dma_bench")
        self.assertEqual(rows[0]["ops"], 200)

    def test_to_frame(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError) as caught:
                self.r.to_frame()
            self.assertIn("pandas", str(caught.exception))
            return
        frame = self.r.to_frame()
        self.assertEqual(len(frame), 1)
        self.assertEqual(frame.loc[0, "op"], "dma_bench")
        self.assertEqual(frame.loc[0, "bytes"], 200 * 1024)

    def test_workload_steps(self):
        data = {"steps": [{"op": "create_pd"}, {"op": "read_stream"}, {"op": "dma_bench"},
                          {"op": "expect_memory"}]}
        self.assertEqual([s["op"] for s in rnicsim.workload_steps(data)],
                         ["read_stream", "dma_bench"])
        self.assertEqual(workload_indices(data), [1, 2])


class Markdown(unittest.TestCase):
    def test_cell(self):
        self.assertEqual(markdown.cell("a|b"), "a\\|b")
        self.assertEqual(markdown.cell("plain"), "plain")

    def test_row_and_header(self):
        self.assertEqual(markdown.row(["`k`", 1, "x"]), "| `k` | 1 | x |")
        self.assertEqual(markdown.header(["a", "b", "c"]), ["| a | b | c |", "|---|---|---|"])

    def test_series(self):
        self.assertEqual(markdown.series("size", [64, 4096], [("Gb/s", [1.234, 50.0], ".1f")]),
                         ["| size | 64 | 4096 |", "|---|---|---|", "| Gb/s | 1.2 | 50.0 |"])


class FindBinary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        env = {k: v for k, v in os.environ.items() if k not in ("RNICSIM", "RNICSIM_BUILD_DIR")}
        patcher = mock.patch.dict(os.environ, env, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def fake(self, *parts, executable=True):
        path = os.path.join(self.tmp.name, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n")
        if executable:
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def test_explicit(self):
        self.assertEqual(rnicsim.find_rnicsim(RNICSIM), RNICSIM)
        with self.assertRaises(rnicsim.RnicsimNotFound) as caught:
            rnicsim.find_rnicsim(os.path.join(self.tmp.name, "nope"))
        self.assertIn("--rnicsim", str(caught.exception))
        with self.assertRaises(rnicsim.RnicsimNotFound):
            rnicsim.find_rnicsim(self.fake("not-executable", executable=False))

    def test_explicit_wins_over_environment(self):
        os.environ["RNICSIM"] = os.path.join(self.tmp.name, "nope")
        self.assertEqual(rnicsim.find_rnicsim(RNICSIM), RNICSIM)

    def test_environment(self):
        os.environ["RNICSIM"] = os.path.join(self.tmp.name, "nope")
        with self.assertRaises(rnicsim.RnicsimNotFound) as caught:
            rnicsim.find_rnicsim()
        self.assertIn("$RNICSIM", str(caught.exception))
        os.environ["RNICSIM"] = RNICSIM
        self.assertEqual(rnicsim.find_rnicsim(), RNICSIM)

    def test_build_dir(self):
        os.environ["RNICSIM_BUILD_DIR"] = self.tmp.name
        with self.assertRaises(rnicsim.RnicsimNotFound) as caught:
            rnicsim.find_rnicsim(build=False)  # nothing built, and no building asked
        self.assertIn("scripts/setup --build", str(caught.exception))
        self.fake("app", "rnicsim")  # not where the build puts it (build/rnicsim only)
        with self.assertRaises(rnicsim.RnicsimNotFound):
            rnicsim.find_rnicsim(build=False)
        top = self.fake("rnicsim")
        self.assertEqual(rnicsim.find_rnicsim(build=False), top)

    def test_cli_exit(self):
        with self.assertRaises(SystemExit) as caught, mock.patch("sys.stderr"):
            cli.rnicsim_or_exit("tool", os.path.join(self.tmp.name, "nope"))
        self.assertEqual(caught.exception.code, 2)


class Helpers(unittest.TestCase):
    def test_need(self):
        plots.need(["json"])  # importable: returns
        with mock.patch.dict(os.environ, {"RNICSIM_PY_REEXEC": "1"}):  # already re-ran: no exec
            with self.assertRaises(plots.MissingModules) as caught:
                plots.need(["matplotlib", "no_such_module_xyz"])
        self.assertIn("no_such_module_xyz", str(caught.exception))

    def test_parser(self):
        p = cli.parser("tool", "doc")
        cli.add_rnicsim(p)
        cli.add_sets(p)
        cli.add_jobs(p, default=3)
        args = p.parse_args(["--set", "a=1", "--set", "b=2", "--rnicsim", "x"])
        self.assertEqual((args.sets, args.rnicsim, args.jobs), (["a=1", "b=2"], "x", 3))

    def test_call(self):
        self.assertIn("pcie.mrrs", binary.call(RNICSIM, "params"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
