#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest tools/pylib-sweep: the rnicsim Python package (scripts/python/rnicsim) on the built
binary: the sweep's plots (units, categories, reference points, file names),
flags values, combinations and the ETA (needs matplotlib, else skipped).

usage: test_pylib_sweep.py RNICSIM SOURCE_DIR [unittest options]
"""
import json
import os
import tempfile
import unittest
from unittest import mock

# First: it takes RNICSIM SOURCE_DIR off the command line and puts the package on sys.path.
from pylib_common import load_sweep

from rnicsim import plots


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
