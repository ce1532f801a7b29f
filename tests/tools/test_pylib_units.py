#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest tools/pylib-units: the rnicsim Python package (scripts/python/rnicsim) on the built
binary: units of config keys, metrics and scenario fields for labels and
ticks, and the did-you-mean suggestions (the Python tools and the binary).

usage: test_pylib_units.py RNICSIM SOURCE_DIR [unittest options]
"""
import json
import os
import re
import unittest

# First: it takes RNICSIM SOURCE_DIR off the command line and puts the package on sys.path.
from pylib_common import RNICSIM, ROOT, TINY, load_sweep, tiny

import rnicsim
from rnicsim import cli, units


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
