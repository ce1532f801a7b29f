#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest tools/pylib-results: the rnicsim Python package (scripts/python/rnicsim) on the built
binary: rnicsim.run() on tiny.json, its errors, scenario names, results access
(metrics, frames, statistics) and parallel runs.

usage: test_pylib_results.py RNICSIM SOURCE_DIR [unittest options]
"""
import json
import os
import tempfile
import unittest
from unittest import mock

# First: it takes RNICSIM SOURCE_DIR off the command line and puts the package on sys.path.
from pylib_common import RNICSIM, ROOT, TINY, tiny

import rnicsim
from rnicsim.results import workload_indices


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


class Errors(unittest.TestCase):
    """Bad input and failed runs raise rnicsim.Error (the classes of errors.py) with a message,
    never a KeyError or OSError from inside the package."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def fake_rnicsim(self, body):
        path = os.path.join(self.tmp.name, "fake-rnicsim")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
        return path

    def test_hierarchy(self):
        self.assertTrue(issubclass(rnicsim.Error, Exception))
        for cls in (rnicsim.BuildError, rnicsim.RunError, rnicsim.ScenarioError,
                    rnicsim.ValidationError):
            self.assertTrue(issubclass(cls, rnicsim.Error), cls)
        self.assertTrue(issubclass(rnicsim.ScenarioError, rnicsim.RunError))
        self.assertTrue(issubclass(rnicsim.ValidationError, rnicsim.ScenarioError))
        self.assertIs(rnicsim.RnicsimNotFound, rnicsim.BuildError)
        for name in ("Error", "BuildError", "RunError", "ScenarioError", "ValidationError"):
            self.assertIn(name, rnicsim.__all__)

    def test_refused_run(self):
        data = tiny()
        data["steps"][0]["size"] = -1
        r = rnicsim.run(data, rnicsim=RNICSIM, check=False)
        self.assertTrue(r.refused)
        self.assertFalse(r.passed)
        self.assertEqual(r.exit_code, 2)
        self.assertIn("size", r.message)
        self.assertEqual(r.message, r.stderr.strip())
        for accessor in (r.metrics, r.workload_metrics, r.to_frame):
            with self.subTest(accessor=accessor.__name__):
                with self.assertRaises(rnicsim.Error) as caught:  # not KeyError 'steps'
                    accessor()
                self.assertIsInstance(caught.exception, rnicsim.ScenarioError)
                self.assertNotIsInstance(caught.exception, KeyError)
                self.assertTrue(str(caught.exception).startswith("the run was refused: "))
                self.assertIn(r.message, str(caught.exception))
        with self.assertRaises(rnicsim.ScenarioError) as caught:  # and with check=True
            rnicsim.run(data, rnicsim=RNICSIM)
        self.assertEqual(caught.exception.exit_code, 2)
        ok = rnicsim.run(TINY, rnicsim=RNICSIM, check=False)
        self.assertFalse(ok.refused)
        self.assertTrue(ok.passed)

    def test_rnicsim_failed(self):
        """Not a refusal: exit 3, or killed by a signal, is a RunError but no ScenarioError;
        its Results (check=False) say why when asked for metrics."""
        fake = self.fake_rnicsim('echo "rnicsim: internal error: boom" >&2; exit 3')
        with self.assertRaises(rnicsim.RunError) as caught:
            rnicsim.run(TINY, rnicsim=fake)
        self.assertNotIsInstance(caught.exception, rnicsim.ScenarioError)
        self.assertEqual(caught.exception.exit_code, 3)
        self.assertIn("boom", str(caught.exception))
        r = rnicsim.run(TINY, rnicsim=fake, check=False)
        self.assertFalse(r.refused or r.passed)
        with self.assertRaises(rnicsim.RunError) as caught:
            r.metrics()
        self.assertIn("boom", str(caught.exception))
        killed = self.fake_rnicsim("kill -SEGV $$")
        with self.assertRaises(rnicsim.RunError) as caught:
            rnicsim.run(TINY, rnicsim=killed)
        self.assertIn("signal 11", str(caught.exception))

    def test_bad_input_at_the_boundary(self):
        with self.assertRaises(rnicsim.BuildError):
            rnicsim.run(TINY, rnicsim=os.path.join(self.tmp.name, "no-rnicsim"))
        missing = os.path.join(self.tmp.name, "missing.json")
        with self.assertRaises(rnicsim.ScenarioError) as caught:  # rnicsim's own refusal
            rnicsim.run(missing, rnicsim=RNICSIM)
        self.assertIn(missing, str(caught.exception))
        data = tiny()
        data["steps"][0]["size"] = {64, 128}  # a set: no JSON for it
        with self.assertRaises(rnicsim.ScenarioError) as caught:
            rnicsim.run(data, rnicsim=RNICSIM)
        self.assertIn("not JSON", str(caught.exception))
        with self.assertRaises(rnicsim.ScenarioError):
            rnicsim.run(42, rnicsim=RNICSIM)
        with self.assertRaises(rnicsim.ScenarioError):
            rnicsim.workload_steps({"name": "no steps"})
        r = rnicsim.run(TINY, rnicsim=RNICSIM)
        with self.assertRaises(rnicsim.Error) as caught:  # not IndexError
            r.metrics(5)
        self.assertIn("no step 5", str(caught.exception))
        s = rnicsim.Scenario("x")
        step = s.dma_bench("A", size=64, count=1)
        with self.assertRaises(rnicsim.Error):  # not StopIteration
            s.index(dict(step))
        target = os.path.join(self.tmp.name, "no", "such", "folder", "x.json")
        with self.assertRaises(rnicsim.Error) as caught:  # not FileNotFoundError
            s.write(target)
        self.assertIn(target, str(caught.exception))


class ScenarioNames(unittest.TestCase):
    """A scenario's name is data: it never becomes a path (the temporary file has the package's
    name), whatever it holds."""

    def test_name_does_not_leave_the_temporary_folder(self):
        with tempfile.TemporaryDirectory() as top:
            victim = os.path.join(top, "victim.json")
            with open(victim, "w") as f:
                f.write("precious\n")
            cwd = os.path.join(top, "cwd")  # ../victim.json from here is the victim too
            os.mkdir(cwd)
            names = ["../victim", os.path.join(top, "absolute"), "a/b", ".."]
            before = os.getcwd()
            os.chdir(cwd)
            try:
                # Temporary folders inside `top`: TMP/rnicsim-builder-X/../victim.json is the
                # victim.
                with mock.patch.object(tempfile, "tempdir", top):
                    for name in names:
                        with self.subTest(name=name):
                            s = rnicsim.Scenario(name)
                            s.dma_bench("A", size=512, count=10)
                            self.assertTrue(s.validate(rnicsim=RNICSIM))
                            self.assertEqual(s.run(rnicsim=RNICSIM).metrics()["ops"], 10)
                            s.read_stream("qpNope", count=1, size=64, sgl="mrA", remote="mrB")
                            with self.assertRaises(rnicsim.ValidationError) as caught:
                                s.validate(rnicsim=RNICSIM)
                            self.assertIn("qpNope", str(caught.exception))
                            self.assertNotIn(top, str(caught.exception))  # no temporary path
            finally:
                os.chdir(before)
            with open(victim) as f:
                self.assertEqual(f.read(), "precious\n")
            # Nothing left, nothing written outside the temporary folders (now removed).
            self.assertEqual(sorted(os.listdir(top)), ["cwd", "victim.json"])
            self.assertEqual(os.listdir(cwd), [])

    def test_long_name(self):
        name = "n" * 300  # longer than a file name may be (255)
        data = tiny()
        data["name"] = name
        r = rnicsim.run(data, rnicsim=RNICSIM)
        self.assertEqual(r["scenario"], name)
        self.assertEqual(r.metrics()["ops"], 200)
        s = rnicsim.Scenario(name)
        s.dma_bench("A", size=512, count=10)
        self.assertTrue(s.validate(rnicsim=RNICSIM))
        data["steps"][0]["size"] = -1
        with self.assertRaises(rnicsim.ScenarioError) as caught:  # refused, not OSError
            rnicsim.run(data, rnicsim=RNICSIM)
        self.assertIn("size", caught.exception.stderr)


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

    def test_stats_rows(self):
        rows = self.r.stats_rows()
        by = {(x["node"], x["unit"], x["statistic"]): x for x in rows}
        self.assertEqual(by[("A", "memory", "dev_reads")],
                         {"node": "A", "unit": "memory", "statistic": "dev_reads",
                          "value": self.r["stats"]["A.memory"]["dev_reads"],
                          "unit_of_measure": "transactions"})
        self.assertEqual(by[("A", "memory", "dev_reads")]["value"], 400)  # 200 x 1024 B / MRRS
        self.assertEqual(by[(None, "switch", "forwarded")]["unit_of_measure"], "messages")
        # A histogram: a row per field, the count in samples, the rest in ns.
        hist = self.r["stats"]["A.rnic.dma_read"]["request_latency_ns"]
        self.assertEqual(by[("A", "rnic.dma_read", "request_latency_ns.count")],
                         {"node": "A", "unit": "rnic.dma_read",
                          "statistic": "request_latency_ns.count", "value": hist["count"],
                          "unit_of_measure": "samples"})
        self.assertEqual(hist["count"], 200)
        self.assertEqual(by[("A", "rnic.dma_read", "request_latency_ns.p50")]["unit_of_measure"],
                         "ns")
        # An occupancy: mean and max in the resource's unit.
        self.assertEqual(by[("B", "rnic.fetcher", "wqes_buffered.max")]["unit_of_measure"],
                         "WQEs")
        # Every number of "stats" is a row, and `rnicsim stats` gives each a unit.
        numbers = sum(len(v) if isinstance(v, dict) else 1
                      for owner in self.r["stats"].values() for v in owner.values())
        self.assertEqual(len(rows), numbers)
        self.assertEqual([x for x in rows if not x["unit_of_measure"]], [])
        self.assertEqual(self.r.rnicsim, RNICSIM)  # run() says which binary wrote them
        # Results read from a file: units from the binary given.
        loaded = rnicsim.Results(json.loads(json.dumps(self.r)))
        self.assertEqual(loaded.stats_rows(RNICSIM), rows)

    def test_stats_frame(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError) as caught:
                self.r.stats_frame()
            self.assertIn("pandas", str(caught.exception))
            return
        frame = self.r.stats_frame()
        self.assertEqual(list(frame.columns),
                         ["node", "unit", "statistic", "value", "unit_of_measure"])
        row = frame[(frame.node == "A") & (frame.unit == "memory")
                    & (frame.statistic == "dev_reads")]
        self.assertEqual(row["value"].tolist(), [400])
        self.assertEqual(row["unit_of_measure"].tolist(), ["transactions"])

    def test_stats_of_a_refused_run(self):
        r = rnicsim.run(dict(tiny(), steps="no"), rnicsim=RNICSIM, check=False)
        with self.assertRaises(rnicsim.ScenarioError):
            r.stats_rows()

    def test_workload_steps(self):
        data = {"steps": [{"op": "create_pd"}, {"op": "read_stream"}, {"op": "dma_bench"},
                          {"op": "expect_memory"}, {"op": "traffic"}]}
        self.assertEqual([s["op"] for s in rnicsim.workload_steps(data)],
                         ["read_stream", "dma_bench", "traffic"])
        self.assertEqual(workload_indices(data), [1, 2, 4])

    def test_workload_ops_are_the_schema_ops_with_metrics(self):
        """WORKLOAD_OPS is every op whose step takes metric bounds (expect: metric_bounds) in
        scenarios/schema.json: an op that reports metrics (pingpong) is in the sweep's CSV."""
        with open(os.path.join(ROOT, "scenarios", "schema.json")) as f:
            schema = json.load(f)
        with_metrics = {branch["if"]["properties"]["op"]["const"]
                        for branch in schema["definitions"]["step"]["allOf"]
                        if "metric_bounds" in json.dumps(branch["then"])}
        self.assertEqual(set(rnicsim.WORKLOAD_OPS), with_metrics)
        self.assertIn("pingpong", rnicsim.WORKLOAD_OPS)


class Parallel(unittest.TestCase):
    def test_run_many_in_order(self):
        small = tiny()
        small["steps"][0]["count"] = 10
        rs = rnicsim.run_many([TINY, small, TINY], jobs=2, set={"pcie.mrrs": 256},
                              rnicsim=RNICSIM)
        self.assertEqual([r.metrics()["ops"] for r in rs], [200, 10, 200])
        self.assertEqual({r["config"]["pcie.mrrs"] for r in rs}, {256})

    def test_runner_names_edits_and_count(self):
        with open(TINY) as f:
            before = f.read()
        given = tiny()
        with rnicsim.Runner(2, RNICSIM, directory=os.path.dirname(TINY)) as runner:
            plain = runner.submit("tiny", seed=5)  # a bare name: DIRECTORY/tiny.json
            edited = runner.submit("tiny", lambda d: d["steps"][0].update(count=7))
            from_dict = runner.submit(given, lambda d: d["steps"][0].update(count=3))
            self.assertEqual(runner.count, 3)
            self.assertEqual(plain.result()["seed"], 5)
            self.assertEqual(edited.result().metrics()["ops"], 7)
            self.assertEqual(from_dict.result().metrics()["ops"], 3)
        with open(TINY) as f:
            self.assertEqual(f.read(), before)  # the edit changed a copy
        self.assertEqual(given, tiny())

    def test_runner_failures(self):
        with rnicsim.Runner(1, RNICSIM, directory=os.path.dirname(TINY)) as runner:
            bad = runner.submit("tiny", lambda d: None, set=["pcie.mrrs=3"])
            with self.assertRaises(rnicsim.ScenarioError) as caught:
                bad.result()
            # The message names the scenario and the arguments of the run that failed.
            self.assertIn("rnicsim run tiny.json --set pcie.mrrs=3: exit 2", str(caught.exception))
            self.assertEqual(caught.exception.exit_code, 2)
            self.assertTrue(runner.submit("tiny", set=["pcie.mrrs=3"], check=False)
                             .result().refused)
            with self.assertRaises(rnicsim.ScenarioError):
                runner.submit("no-such-scenario", lambda d: None)  # read now: raises now


if __name__ == "__main__":
    unittest.main(verbosity=2)
