#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest tools/pylib-helpers: the rnicsim Python package (scripts/python/rnicsim) on the built
binary: the markdown helpers, finding (and building) the binary, the
command-line helpers, and the speed measure (scripts/bench).

usage: test_pylib_helpers.py RNICSIM SOURCE_DIR [unittest options]
"""
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

# First: it takes RNICSIM SOURCE_DIR off the command line and puts the package on sys.path.
from pylib_common import RNICSIM, ROOT, TINY

import rnicsim
from rnicsim import binary, cli, markdown, plots, speed


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
