#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest tools/pylib: the rnicsim Python package (scripts/python/rnicsim) on the built binary.

usage: test_pylib.py RNICSIM SOURCE_DIR [unittest options]
"""
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

RNICSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
del sys.argv[1:3]  # the rest is unittest's
sys.path.insert(0, os.path.join(ROOT, "scripts", "python"))
import rnicsim  # noqa: E402
from rnicsim import binary, cli, markdown, plots, speed, units  # noqa: E402
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

    def test_found_binary_is_not_built(self):
        os.environ["RNICSIM_BUILD_DIR"] = self.tmp.name
        top = self.fake("rnicsim")
        with mock.patch("subprocess.run") as run:
            self.assertEqual(rnicsim.find_rnicsim(), top)
            self.assertEqual(rnicsim.find_rnicsim(RNICSIM), RNICSIM)
        run.assert_not_called()

    def test_build_only_when_none_and_says_so(self):
        os.environ["RNICSIM_BUILD_DIR"] = self.tmp.name

        def build(cmd, **kwargs):
            self.assertTrue(cmd[0].endswith(os.path.join("scripts", "setup")))
            self.assertEqual(cmd[1:], ["--build", "rnicsim"])  # the simulator, not the tests
            self.fake("rnicsim")
            return mock.Mock(returncode=0, stdout="", stderr="")

        with mock.patch("subprocess.run", side_effect=build) as run, \
                mock.patch("sys.stderr") as stderr:
            self.assertEqual(rnicsim.find_rnicsim(), os.path.join(self.tmp.name, "rnicsim"))
        self.assertEqual(run.call_count, 1)
        said = "".join(c.args[0] for c in stderr.write.call_args_list)
        self.assertIn("building it", said)

    def test_no_checkout_takes_path(self):
        # An installed copy that knows no checkout: `rnicsim` on PATH, else a clear error.
        bindir = os.path.join(self.tmp.name, "bin")
        exe = self.fake("bin", "rnicsim")
        with mock.patch.object(binary, "ROOT", None), \
                mock.patch.dict(os.environ, {"PATH": os.path.join(self.tmp.name, "none")}):
            with self.assertRaises(rnicsim.BuildError) as caught:
                rnicsim.find_rnicsim()
            self.assertIn("PATH", str(caught.exception))
            self.assertIn("RNICSIM", str(caught.exception))
            os.environ["PATH"] = bindir
            with mock.patch("subprocess.run") as run:
                self.assertEqual(rnicsim.find_rnicsim(), exe)
            run.assert_not_called()  # nothing to build with
            os.environ["RNICSIM"] = RNICSIM
            self.assertEqual(rnicsim.find_rnicsim(), RNICSIM)  # $RNICSIM first

    def test_checkout_ignores_path(self):
        # In a checkout the build is the binary (PATH is not looked at).
        os.environ["RNICSIM_BUILD_DIR"] = os.path.join(self.tmp.name, "empty")
        self.fake("bin", "rnicsim")
        with mock.patch.dict(os.environ, {"PATH": os.path.join(self.tmp.name, "bin")}):
            with self.assertRaises(rnicsim.BuildError):
                rnicsim.find_rnicsim(build=False)

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


class Speed(unittest.TestCase):
    """The parts of scripts/bench --instructions and ctest instructions/* that need no
    valgrind (those tests run it)."""

    def test_collected(self):
        stderr = ("==4256== Callgrind, a call-graph generating cache profiler\n"
                  "==4256== Events    : Ir\n==4256== Collected : 66573215\n==4256== \n"
                  "==4256== I   refs:      66,573,215\n")
        self.assertEqual(speed.collected(stderr), 66573215)
        self.assertEqual(speed.collected("rnicsim: warn\n==7== Collected :  12\n"), 12)
        with self.assertRaises(ValueError):
            speed.collected("==1== I   refs:      66,573,215\n")  # no Collected line
        with self.assertRaises(ValueError):  # a child process traced too: which one?
            speed.collected("==1== Collected : 5\n==2== Collected : 6\n")
        with self.assertRaises(ValueError):  # the client's own text, not valgrind's
            speed.collected("Collected : 5\n")

    def test_parse_lengths(self):
        self.assertEqual(speed.parse_lengths("200,1200"), (200, 1200))
        for bad in ("1000", "5,2", "0,10", "1,2,3", "a,b", "-1,5", "10,10"):
            with self.assertRaises(ValueError, msg=bad):
                speed.parse_lengths(bad)

    def test_with_counts(self):
        with open(os.path.join(ROOT, "scenarios", "perf", "read-64b.json")) as f:
            data = json.load(f)
        before = json.dumps(data, sort_keys=True)
        changed = speed.with_counts(data, 7)
        self.assertEqual(json.dumps(data, sort_keys=True), before)  # a copy: the input is kept
        streams = [s for s in changed["steps"] if s["op"] == "read_stream"]
        self.assertEqual(len(streams), 2)  # warm-up and measured step: both rewritten
        self.assertEqual([s["count"] for s in streams], [7, 7])
        self.assertTrue(all("expect" not in s for s in streams))  # ops == 20000 would fail
        self.assertEqual([s for s in changed["steps"] if s["op"] != "read_stream"],
                         [s for s in data["steps"] if s["op"] != "read_stream"])
        with open(os.path.join(ROOT, "scenarios", "perf", "traffic-qps.json")) as f:
            traffic = speed.with_counts(json.load(f), 9)["steps"][0]
        self.assertEqual((traffic["ops"], "count" in traffic, "expect" in traffic),
                         (9, False, False))  # a traffic step counts its ops

    def test_ops_and_events(self):
        results = {"steps": [{"op": "alloc"},
                             {"op": "read_stream", "metrics": {"ops": 100, "deltas_per_op": 4}},
                             {"op": "read_stream", "metrics": {"ops": 300, "deltas_per_op": 2}}]}
        self.assertEqual(speed.measured_ops(results), 400)
        self.assertEqual(speed.events_per_op(results), (100 * 4 + 300 * 2) / 400)
        self.assertEqual(speed.events_per_op({"steps": [{"op": "alloc"}]}), 0.0)
        r = rnicsim.run(TINY, rnicsim=RNICSIM)  # the real results JSON: dma_bench, 200 ops
        self.assertEqual(speed.measured_ops(r), 200)
        self.assertGreater(speed.events_per_op(r), 0)

    def test_per_op(self):
        self.assertEqual(speed.per_op(1000, 10, 3000, 110), 20.0)  # start-up (800) cancels
        with self.assertRaises(ValueError):
            speed.per_op(1000, 10, 3000, 10)

    def test_callgrind_command(self):
        cmd = speed.callgrind_command("/b/rnicsim", "s.json", "o.json", ["--set", "sim.fast=1"],
                                      tool="/usr/bin/valgrind")
        self.assertEqual(cmd, ["/usr/bin/valgrind", "--tool=callgrind",
                               "--callgrind-out-file=/dev/null", "/b/rnicsim", "run", "s.json",
                               "--quiet", "--out", "o.json", "--set", "sim.fast=1"])

    def test_callgrind_command_with_profile(self):
        cmd = speed.callgrind_command("/b/rnicsim", "s.json", "o.json", tool="/v",
                                      profile="/w/p.out")
        self.assertEqual(cmd[:3], ["/v", "--tool=callgrind", "--callgrind-out-file=/w/p.out"])

    def test_socket_crossings(self):
        # Callgrind names a function once, then by number; "calls=N" follows each call site's
        # cfn=. Only the model's b_transport functions count, the sockets' thunks do not.
        profile = "\n".join([
            "fn=(1) rnic::WqeFetcher::fetch()",
            "cfn=(2) virtual thunk to rnic::TargetSocket<rnic::Requester>::Fw::b_transport("
            "tlm::tlm_generic_payload&, sc_core::sc_time&)",
            "calls=7 0x0 12",
            "5 10",
            "fn=(2)",
            "cfn=(3) rnic::Requester::work_b_transport(tlm::tlm_generic_payload&, "
            "sc_core::sc_time&)",
            "calls=7 0x0 3",
            "1 500",
            "fn=(4) rnic::Switch::deliver()",
            "cfn=(5) rnic::Port::rx_b_transport(tlm::tlm_generic_payload&, sc_core::sc_time&)'2",
            "calls=2 0x0 3",
            "cfn=(3)",
            "calls=1 0x0 4",
            "cfn=(6) rnic::HostMemory::transport_dbg(tlm::tlm_generic_payload&)",
            "calls=9 0x0 4",
            "cfn=(7) sc_core::sc_event::notify(sc_core::sc_time const&)",
            "calls=5 0x0 4",
            ""])
        with tempfile.NamedTemporaryFile("w", suffix=".out", delete=False) as f:
            f.write(profile)
        self.addCleanup(os.unlink, f.name)
        self.assertEqual(speed.socket_crossings(f.name), 7 + 2 + 1)

    def test_bench_without_valgrind(self):
        empty = tempfile.TemporaryDirectory()  # a PATH with no valgrind on it
        self.addCleanup(empty.cleanup)
        with mock.patch.dict(os.environ, {"PATH": empty.name}):
            self.assertIsNone(speed.valgrind())
        proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "bench"),
                               "--instructions", "--rnicsim", RNICSIM],
                              capture_output=True, text=True,
                              env=dict(os.environ, PATH=empty.name))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("valgrind", proc.stderr)
        self.assertIn("scripts/setup --fuzz", proc.stderr)


class Units(unittest.TestCase):
    def test_metric_units_match_stats_doc(self):
        with open(os.path.join(ROOT, "docs", "generated", "stats.md")) as f:
            text = f.read().split("## Workload metrics", 1)[1].split("\n## ", 1)[0]
        doc = dict(re.findall(r"^\| `([^`]+)` \| ([^|]+?) \| ", text, re.M))
        self.assertEqual(units.METRIC_UNITS, doc)

    def test_param_units(self):
        table = units.param_units(RNICSIM)
        self.assertEqual(table["pcie.mps"], "bytes")
        self.assertEqual(table["device.clock_mhz"], "MHz")
        self.assertEqual(table["mtt.cache_entries"], "entries")

    def test_every_numeric_workload_field_has_a_unit(self):
        """A sweep may put any numeric field of a workload step on an axis: each has a unit
        (regions, region_bytes and page_size had none)."""
        with open(os.path.join(ROOT, "scenarios", "schema.json")) as f:
            schema = json.load(f)
        defs = schema["definitions"]

        def numeric(prop):
            text = json.dumps(prop)
            return "#/definitions/literal" in text or '"integer"' in text or (
                "enum" in prop and all(isinstance(v, int) or str(v).startswith("0x")
                                       for v in prop["enum"]))
        props = [defs["flow"]["properties"], defs["stream_remote"]["properties"]]
        props += [b["then"]["properties"] for b in defs["step"]["allOf"]
                  if b["if"]["properties"]["op"]["const"] in rnicsim.WORKLOAD_OPS]
        fields = {name for p in props for name, prop in p.items()
                  if name != "flags" and numeric(prop)}
        self.assertIn("region_bytes", fields)
        self.assertEqual(sorted(f for f in fields if f not in units.FIELD_UNITS), [])
        self.assertEqual(units.unit_of("steps[0].flows[0].region_bytes"), "bytes")
        self.assertEqual(units.unit_of("steps[3].page_size"), "bytes")
        self.assertEqual(units.axis_label("steps[0].flows[0].regions"), "flows[0].regions "
                         "[regions] (step 0)")

    def test_tick_texts(self):
        """Log-axis ticks: byte counts in binary units, other counts as plain numbers."""
        self.assertEqual([units.tick_text(v, "bytes") for v in
                          (256, 1024, 4096, 1 << 20, 2 << 20, 1 << 30, 1536, 0)],
                         ["256 B", "1 KiB", "4 KiB", "1 MiB", "2 MiB", "1 GiB", "1536 B", ""])
        self.assertEqual([units.tick_text(v, "operations") for v in (1, 64, 0.25, -1)],
                         ["1", "64", "0.25", ""])
        self.assertEqual(units.tick_text(2097152.0, "B"), "2 MiB")

    def test_default_title(self):
        self.assertEqual(units.default_title(None, None, "step14.gbps", "steps[14].size"),
                         "gbps vs size")
        self.assertEqual(units.default_title("mtt-footprint", "MTT misses. More text.",
                                             "gbps", "steps[3].flows[0].regions", "pcie.mps"),
                         "mtt-footprint: gbps vs flows[0].regions by pcie.mps\nMTT misses.")
        long = units.default_title("x", "word " * 100 + ".", "gbps", "pcie.mps")
        lines = long.splitlines()
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[2].endswith("...") and all(len(t) <= 85 for t in lines[1:]))

    def test_labels(self):
        params = {"pcie.mps": "bytes", "mtt.cache_entries": "entries"}
        self.assertEqual(units.axis_label("gbps"), "gbps [Gb/s]")
        self.assertEqual(units.axis_label("step14.mops"), "mops [Mop/s] (step 14)")
        self.assertEqual(units.axis_label("step14.mops", show_step=False), "mops [Mop/s]")
        self.assertEqual(units.axis_label("step0.latency_ns.p50"), "latency_ns.p50 [ns] (step 0)")
        self.assertEqual(units.axis_label("step0.mtt.hit_rate", show_step=False),
                         "mtt.hit_rate [fraction]")
        self.assertEqual(units.axis_label("pcie.mps", params), "pcie.mps [B]")
        self.assertEqual(units.axis_label("steps[13,14].remote.span"),
                         "remote.span [B] (steps 13,14)")
        self.assertEqual(units.axis_label("steps[14].outstanding", show_step=False),
                         "outstanding [ops]")
        self.assertEqual(units.axis_label("wall_s"), "wall_s [s]")
        self.assertEqual(units.legend_entry("pcie.mps", "256", params), "pcie.mps = 256 B")
        self.assertEqual(units.legend_entry("steps[13,14].remote.span", "1048576"),
                         "remote.span = 1 MiB")
        self.assertEqual(units.legend_entry("mtt.cache_entries", 64, params),
                         "mtt.cache_entries = 64 entries")


class DidYouMean(unittest.TestCase):
    """Misspelt names: the Python tools suggest as rnicsim does (app/scenario/suggest.h)."""

    def test_close_names(self):
        keys = ["pcie.gen", "pcie.mrrs", "pcie.mps", "mtt.cache_entries", "mpt.cache_entries"]
        self.assertEqual(cli.close_names("pcie.mrr", keys), ["pcie.mrrs"])
        self.assertEqual(cli.close_names("PCIE-MRRS", keys), ["pcie.mrrs"])  # case, separator
        self.assertEqual(cli.close_names("gen", keys), ["pcie.gen"])  # its last words
        self.assertEqual(cli.close_names("cache_entries", keys),
                         ["mtt.cache_entries", "mpt.cache_entries"])
        self.assertEqual(cli.close_names("frobnicate", keys), [])
        self.assertEqual(cli.close_names("pcie.gen", keys), [])  # valid: nothing to suggest
        self.assertEqual(cli.close_names("", keys), [])
        self.assertEqual(cli.close_names("cycles", ["a.cycles", "b.cycles", "c.cycles",
                                                    "d.cycles"]), [])  # too many to help
        self.assertEqual(cli.close_names("gpbs", units.METRIC_UNITS), ["gbps"])

    def test_message(self):
        self.assertEqual(cli.did_you_mean("pcie.mrr", ["pcie.mrrs", "pcie.mps"]),
                         '; did you mean "pcie.mrrs"?')
        self.assertEqual(cli.did_you_mean("cache_entries", ["mtt.cache_entries",
                                                            "mpt.cache_entries"]),
                         '; did you mean "mtt.cache_entries" or "mpt.cache_entries"?')
        self.assertEqual(cli.did_you_mean("zz", ["pcie.mrrs"], " (see `rnicsim params`)"),
                         " (see `rnicsim params`)")

    def test_sweep_grid_and_plot_names(self):
        sweep = load_sweep()
        keys = units.param_units(RNICSIM)
        with self.assertRaises(sweep.UsageError) as caught:
            sweep.parse_grid(["pcie.mrr=256,512"], tiny(), keys)
        self.assertEqual(str(caught.exception),
                         'unknown grid key "pcie.mrr"; did you mean "pcie.mrrs"?')
        with self.assertRaises(sweep.UsageError) as caught:
            sweep.parse_grid(["nonsense=1"], tiny(), keys)
        self.assertEqual(str(caught.exception),
                         'unknown grid key "nonsense": not a config key (see `rnicsim params`) '
                         "nor a scenario field steps[N].FIELD")
        cases = [("x=pcie.mrrs,y=gpbs", 'y=gpbs is not a metric; did you mean "gbps"?'),
                 ("x=pcie.mrrs,y=p99", 'y=p99 is not a metric; did you mean "latency_ns.p99"?'),
                 ("x=pcie.mrrs,y=step0.gpbs",
                  'y=step0.gpbs is not a metric; did you mean "step0.gbps"?'),
                 ("x=pcie.mrr,y=gbps", 'x=pcie.mrr is not a grid key; did you mean "pcie.mrrs"?'),
                 ("x=pcie.mrrs,y=gbps,serie=pcie.mps",
                  "bad part 'serie=pcie.mps'; did you mean \"series\"?"),
                 ("x=pcie.mrrs,y=gbps,logz", "bad part 'logz'; did you mean \"logx\" or \"logy\"?"),
                 ("x=pcie.mrrs,y=zzz", "y=zzz is not a metric (ops, bytes, ")]
        for spec, message in cases:
            with self.subTest(spec=spec):
                with self.assertRaises(sweep.UsageError) as caught:
                    sweep.parse_plot(spec, ["pcie.mrrs", "pcie.mps"], [0])
                self.assertIn(message, str(caught.exception))

    def test_sweep_grid_key_into_a_list(self):
        sweep = load_sweep()
        scenario = {"steps": [{"op": "traffic", "flows": [{"qps": 1}, {"qps": 2}]}]}
        indices, fields = sweep.resolve_step_path(scenario, "steps[0].flows[1].qps")
        self.assertEqual((indices, fields), ([0], [("flows", 1), ("qps", None)]))
        sweep.set_step_field(scenario, indices, fields, 64)
        self.assertEqual(scenario["steps"][0]["flows"], [{"qps": 1}, {"qps": 64}])
        with self.assertRaises(sweep.UsageError) as caught:
            sweep.resolve_step_path(scenario, "steps[0].flows[2].qps")
        self.assertEqual(str(caught.exception),
                         "grid key steps[0].flows[2].qps: step 0 (traffic) has no flows[2]")
        self.assertEqual(units.unit_of("steps[0].flows[1].qps"), "QP pairs")
        self.assertEqual(units.short_name("steps[0].flows[1].qps"), "flows[1].qps")

    def test_misspelt_set_key_through_the_binary(self):
        r = rnicsim.run(TINY, set={"pcie.mrr": 256}, rnicsim=RNICSIM, check=False)
        self.assertEqual(r.exit_code, 2)
        self.assertIn('--set pcie.mrr=256: unknown config key "pcie.mrr"; did you mean '
                      '"pcie.mrrs"?', r.stderr)


def load_sweep():
    """The sweep's parts (scripts/sweep is their command line)."""
    from rnicsim import sweep
    return sweep


class SweepPlots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise unittest.SkipTest("no matplotlib (run under /usr/bin/python3)")
        cls.sweep = load_sweep()

    def draw(self, spec, rows, grid_keys, zipped=(), workload=(14,), refs=(), info=(None, None),
             keep=None):
        """draw_plot() keeping its figure: (file name, axes); keep["drawn"] gets what
        draw_plot() says it drew."""
        plt = plots.pyplot()
        figures = []
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(plt, "close", side_effect=figures.append):
            plot = self.sweep.parse_plot(spec, grid_keys, list(workload))
            self.sweep.attach_refs([plot], list(refs), list(workload))
            columns = list(rows[0])
            drawn = self.sweep.draw_plot(plot, grid_keys, list(zipped), rows, columns,
                                         list(workload), tmp, {"pcie.mps": "bytes"}, set(), info)
            self.assertTrue(os.path.exists(drawn["path"]))
        if keep is not None:
            keep["drawn"] = drawn
        figure = next(f for f in figures if hasattr(f, "axes"))
        ax = figure.axes[0]
        plt.close(figure)
        return os.path.basename(drawn["path"]), ax

    def test_region_bytes_ticks_title_and_file_name(self):
        """A byte field with no unit before (region_bytes) on a log axis: binary-unit ticks
        (2 MiB, not 2^21) and a unit in the label; the title from the scenario's name and
        description; a file name without brackets."""
        key = "steps[3].flows[0].region_bytes"
        rows = [{key: str(v), "passed": "1", "step3.mops": "1"} for v in (4096, 2 << 20, 1 << 30)]
        keep = {}
        name, ax = self.draw(f"x={key},y=mops,logx", rows, [key], workload=(3,),
                             info=("mtt-footprint", "MTT misses as regions grow. More."),
                             keep=keep)
        self.assertEqual(name, "mops-vs-flows0.region_bytes.png")
        self.assertEqual(ax.get_xlabel(), "flows[0].region_bytes [B]")
        ticks = ax.xaxis.get_major_formatter()
        self.assertEqual([ticks(v, 0) for v in (4096, 2 << 20, 1 << 30)],
                         ["4 KiB", "2 MiB", "1 GiB"])
        self.assertEqual(ax.get_xscale(), "log")
        self.assertEqual(ax.get_title(), "mtt-footprint: mops vs flows[0].region_bytes\n"
                                         "MTT misses as regions grow.")
        self.assertEqual(keep["drawn"]["title"], ax.get_title())
        # Counts on a base-2 axis read 1, 2, 64 (not 2^6); a byte y on a log axis in binary.
        rows = [{"steps[3].outstanding": str(v), "passed": "1", "step3.bytes": str(v << 20)}
                for v in (1, 2, 64)]
        _, ax = self.draw("x=steps[3].outstanding,y=bytes,logx,logy", rows,
                          ["steps[3].outstanding"], workload=(3,))
        self.assertEqual(ax.xaxis.get_major_formatter()(64, 0), "64")
        self.assertEqual(ax.yaxis.get_major_formatter()(64 << 20, 0), "64 MiB")

    def test_categories_on_x(self):
        """A grid of flags or presets: the x axis has one tick per value, in grid order."""
        key = "steps[7].flags"
        rows = [{key: f, "steps[7].size": s, "passed": "1", "step7.latency_ns.p50": str(p)}
                for s in (2, 64) for f, p in (("INLINE", 1700), ("none", 2100))]
        keep = {}
        _, ax = self.draw(f"x={key},y=latency_ns.p50,series=steps[7].size", rows,
                          [key, "steps[7].size"], workload=(7,), keep=keep)
        self.assertEqual(keep["drawn"]["categories"], ["INLINE", "none"])
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], ["INLINE", "none"])
        self.assertEqual(keep["drawn"]["lines"], {"size = 2 B": [(0, 1700.0), (1, 2100.0)],
                                                  "size = 64 B": [(0, 1700.0), (1, 2100.0)]})

    def test_reference_overlay(self):
        """--ref / ref=: the CSV's points are drawn, unconnected, with their label, in the color
        of the line of the same series value; rows that do not fit are counted, not drawn."""
        rows = [{"pcie.mps": m, "steps[14].outstanding": o, "passed": "1",
                 "step14.gbps": str(o * m / 100)} for m in (128, 256) for o in (1, 2, 4)]
        with tempfile.TemporaryDirectory() as tmp:
            ref = os.path.join(tmp, "fasst.csv")
            with open(ref, "w") as f:
                f.write("outstanding,gbps,series,label\n1,1.5,128,FaSST Fig. 3\n"
                        "4,5.5,128,FaSST Fig. 3\n2,4.5,256,FaSST Fig. 3\nmany,3,256,x\n")
            keep = {}
            _, ax = self.draw("x=steps[14].outstanding,y=gbps,series=pcie.mps", rows,
                              ["pcie.mps", "steps[14].outstanding"], refs=[ref], keep=keep)
            drawn = keep["drawn"]
            self.assertEqual(drawn["ref"], {"FaSST Fig. 3 (pcie.mps = 128 B)": [(1, 1.5), (4, 5.5)],
                                            "FaSST Fig. 3 (pcie.mps = 256 B)": [(2, 4.5)]})
            self.assertEqual(drawn["ref_skipped"], 1)
            lines = {line.get_label(): line for line in ax.get_lines()}
            refline = lines["FaSST Fig. 3 (pcie.mps = 256 B)"]
            self.assertEqual(refline.get_linestyle(), "None")
            self.assertEqual(list(refline.get_xdata()), [2])
            self.assertEqual(refline.get_color(), lines["pcie.mps = 256 B"].get_color())
            self.assertIn("FaSST Fig. 3 (pcie.mps = 128 B)",
                          [t.get_text() for t in ax.get_legend().get_texts()])
            self.assertIn("with 3 reference point(s); 1 reference row(s) skipped",
                          self.sweep.wrote_line(drawn))
            # ref= on the plot itself, with the full column names; a file for no plot.
            with open(ref, "w") as f:
                f.write("steps[14].outstanding,step14.gbps\n2,3\n")
            self.draw(f"x=steps[14].outstanding,y=gbps,ref={ref}", rows,
                      ["pcie.mps", "steps[14].outstanding"], keep=keep)
            self.assertEqual(keep["drawn"]["ref"], {"fasst": [(2, 3.0)]})
            plot = self.sweep.parse_plot("x=pcie.mps,y=mops", ["pcie.mps"], [14])
            with self.assertRaises(self.sweep.UsageError) as caught:
                self.sweep.attach_refs([plot], [ref], [14])
            self.assertIn("matches no plot", str(caught.exception))
            plot = self.sweep.parse_plot(f"x=pcie.mps,y=mops,ref={ref}", ["pcie.mps"], [14])
            with self.assertRaises(self.sweep.UsageError) as caught:
                self.sweep.attach_refs([plot], [], [14])
            self.assertIn("no columns for x=pcie.mps and y=mops", str(caught.exception))
            with self.assertRaises(self.sweep.UsageError) as caught:
                self.sweep.attach_refs([plot], [os.path.join(tmp, "missing.csv")], [14])
            self.assertIn("cannot read", str(caught.exception))

    def test_flags_values(self):
        """A flags grid value is a list: A+B, none."""
        sweep = self.sweep
        self.assertEqual(sweep.field_value("INLINE", True), ["INLINE"])
        self.assertEqual(sweep.field_value("INLINE+SILENT_SUCCESS", True),
                         ["INLINE", "SILENT_SUCCESS"])
        self.assertEqual(sweep.field_value("none", True), [])
        self.assertEqual(sweep.field_value("0x4", True), 4)  # the bitmask form
        self.assertEqual(sweep.field_value("0x4", False), 4)
        scenario = {"steps": [{"op": "pingpong"}, {"op": "pingpong", "flags": ["INLINE"]}]}
        grid = sweep.parse_grid(["steps[0,1].flags=INLINE,none"], scenario, {})
        points = sweep.make_points(scenario, grid, [], [], None)
        self.assertEqual([[s.get("flags") for s in json.loads(p["text"])["steps"]]
                          for p in points], [[["INLINE"], ["INLINE"]], [[], []]])
        self.assertEqual([p["params"] for p in points],
                         [{"steps[0,1].flags": "INLINE"}, {"steps[0,1].flags": "none"}])

    def test_series_markers_legend_name(self):
        rows = [{"pcie.mps": m, "steps[14].outstanding": o, "passed": "1",
                 "step14.gbps": str(o * m / 100)}
                for m in (128, 256, 512, 1024, 2048) for o in (1, 2, 4)]
        name, ax = self.draw("x=steps[14].outstanding,y=gbps,series=pcie.mps", rows,
                             ["pcie.mps", "steps[14].outstanding"])
        self.assertEqual(name, "gbps-vs-outstanding-by-pcie.mps.png")
        self.assertEqual(ax.get_xlabel(), "outstanding [ops]")
        self.assertEqual(ax.get_ylabel(), "gbps [Gb/s]")
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        self.assertEqual(legend, ["pcie.mps = 128 B", "pcie.mps = 256 B", "pcie.mps = 512 B",
                                  "pcie.mps = 1 KiB", "pcie.mps = 2 KiB"])
        styles = [(line.get_marker(), line.get_linestyle()) for line in ax.get_lines()]
        self.assertEqual(len(set(styles)), 5)
        self.assertEqual(len({s[0] for s in styles}), 5)  # a marker per series

    def test_several_workload_steps_keep_the_step(self):
        rows = [{"steps[13,14].size": s, "passed": "1", "step13.gbps": "1", "step14.gbps": "2"}
                for s in (64, 128)]
        name, ax = self.draw("x=steps[13,14].size,y=gbps", rows, ["steps[13,14].size"],
                             workload=(13, 14))
        self.assertEqual(name, "step14.gbps-vs-size.png")
        rows = [{"steps[13,14].size": s, "passed": "1", "step14.gbps": "2"}
                for s in (1024, 1 << 20)]
        _, ax = self.draw("x=steps[13,14].size,y=gbps,logx", rows, ["steps[13,14].size"],
                          workload=(13, 14))
        ticks = ax.xaxis.get_major_formatter()
        self.assertEqual((ticks(1 << 20, 0), ticks(4096, 0), ticks(256, 0)),
                         ("1 MiB", "4 KiB", "256 B"))
        self.assertEqual(ax.get_xlabel(), "size [B] (steps 13,14)")
        self.assertEqual(ax.get_ylabel(), "gbps [Gb/s] (step 14)")

    def test_zipped_keys_split_no_line(self):
        rows = [{"steps[14].size": s, "steps[14].outstanding": o, "passed": "1",
                 "step14.gbps": str(s)} for s, o in ((64, 1), (128, 2), (256, 4))]
        _, ax = self.draw("x=steps[14].size,y=gbps", rows,
                          ["steps[14].size", "steps[14].outstanding"],
                          zipped=["steps[14].size", "steps[14].outstanding"])
        self.assertEqual(len(ax.get_lines()), 1)
        self.assertEqual(list(ax.get_lines()[0].get_xdata()), [64, 128, 256])

    def test_combinations_and_eta(self):
        grid = [("a", "config", ["1", "2"], None)]
        zipped = [("b", "config", ["3", "4", "5"], None), ("c", "config", ["6", "7", "8"], None)]
        combos = self.sweep.combinations(grid, zipped)
        self.assertEqual(len(combos), 6)
        self.assertEqual(combos[:3], [{"a": "1", "b": "3", "c": "6"},
                                      {"a": "1", "b": "4", "c": "7"},
                                      {"a": "1", "b": "5", "c": "8"}])
        self.assertIsNone(self.sweep.eta_seconds([], 5, 2))
        self.assertEqual(self.sweep.eta_seconds([2.0, 4.0], 6, 2), 9.0)  # 3 s x 6 / 2
        self.assertEqual(self.sweep.eta_seconds([2.0], 1, 4), 2.0)
        self.assertEqual(self.sweep.clock(75), "1:15")


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
