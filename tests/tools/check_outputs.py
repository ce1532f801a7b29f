#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Output files and hostile command lines (docs/user-guide.md, "Output files").

Usage: check_outputs.py RNICSIM SCENARIO WORK_DIR

In WORK_DIR: a copy of SCENARIO, a FIFO, a symbolic link to a regular file, a dangling link.
Checks that rnicsim refuses, with exit 2, a message and before simulating, every output that
is not a new or regular file (FIFO, directory, dangling link, a missing directory) or that
is one of its inputs, and two outputs naming one file; that it writes through a link to a
regular file and leaves the link in place; that bad command lines exit 2 with a message; and
that the input is never changed. Every run has an address-space cap of 1 GiB. Prints
"outputs: PASS".
"""
import os
import resource
import shutil
import stat
import subprocess
import sys

MEMORY_BYTES = 1 << 30


def cap():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    rnicsim, scenario, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    shutil.copy(scenario, "q.json")
    shutil.copy(scenario, "q2.json")
    original = open("q.json", "rb").read()
    os.mkfifo("fifo")
    with open("target", "w") as f:
        f.write("keep\n")
    os.symlink("target", "link")
    os.symlink("nothing", "dangling")
    os.mkdir("dir")
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    # ASan reserves terabytes of address space: no cap under the sanitizer pass.
    preexec = None if os.environ.get("ASAN_OPTIONS") else cap

    def run(args, want, needle=""):
        r = subprocess.run([rnicsim] + args, env=env, capture_output=True, text=True,
                           preexec_fn=preexec, timeout=120, stdin=subprocess.DEVNULL)
        if r.returncode != want:
            fail(f"rnicsim {' '.join(args)}: exit {r.returncode}, want {want}: {r.stderr}")
        if want == 2 and (not r.stderr.strip() or needle not in r.stderr):
            fail(f"rnicsim {' '.join(args)}: stderr {r.stderr!r} lacks {needle!r}")
        return r

    refused = [
        (["run", "q.json", "--out", "q.json"], "is an input of this run"),
        (["run", "q.json", "--trace", "./q.json"], "is an input of this run"),
        (["expect", "q.json", "--out", "q.json"], "is an input of this run"),
        (["run", "q.json", "--vcd", "fifo"], "is a FIFO"),
        (["run", "q.json", "--trace", "fifo"], "is a FIFO"),
        (["run", "q.json", "--out", "fifo"], "is a FIFO"),
        (["schema", "--out", "fifo"], "is a FIFO"),
        (["gen", "--seed", "1", "--out", "fifo"], "is a FIFO"),
        (["run", "q.json", "--out", "dir"], "is a directory"),
        (["run", "q.json", "--vcd", "dir"], "is a directory"),
        (["run", "q.json", "--out", "dangling"], "a symbolic link to nothing"),
        (["run", "q.json", "--vcd", "missing/w.vcd"], "no directory"),
        (["run", "q.json", "--out", "missing/r.json"], "no directory"),
        (["run", "q.json", "q2.json", "--out-dir", "missing"], "no directory"),
        (["run", "q.json", "--out", "r.json", "--trace", "r.json"], "also the file of --out"),
        (["run", "q.json", "--out", "link", "--vcd", "target.vcd", "--trace", "target"],
         "also the file of --out"),
        (["run", "q.json", "--quiet=yes"], "takes no value"),
        (["run", "q.json", "--no-summary=1"], "takes no value"),
        (["run", "q.json", "--seed", "-1"], "--seed"),
        (["run", "q.json", "--seed", "18446744073709551616"], "--seed"),
        (["run", "q.json", "--trace-limit", "0"], "--trace-limit"),
        (["run", "q.json", "--vcd-period", "x"], "--vcd-period"),
        (["run", "q.json", "--set", "pcie.gen"], "--set"),
        (["run", "q.json", "--set", "pcie.gen=9"], "--set"),
        (["run", "q.json", "--set", "nosuch.key=1"], "nosuch.key"),
        (["run", "q.json", "--bogus"], "unknown option"),
        (["run"], "needs a scenario file"),
        (["run", "dir"], "is a directory"),
        (["run", "/dev/null"], "invalid JSON"),
        (["validate", "fifo-does-not-exist.json"], "cannot open"),
        (["frobnicate"], "unknown command"),
        (["gen"], "--seed"),
        (["params", "--preset", "nosuch"], "nosuch"),
        (["run", "q.json", "--trace", "t2.json", "--trace-from", "99999"], "no such step"),
        (["run", "q.json", "--trace", "t2.json", "--trace-from", "5 us"], "--trace-from"),
        (["run", "q.json", "--trace", "t2.json", "--trace-from", "5mm"], "--trace-from"),
        (["run", "q.json", "--trace-from", "5us"], "needs --trace"),
        (["run", "q.json", "--trace", "t2.json", "--trace-period", "-1"], "--trace-period"),
        (["report"], "report needs"),
        (["report", "dir"], "is a directory"),
        (["report", "q.json"], "neither a trace"),
        (["report", "fifo-does-not-exist.json"], "no such file"),
        (["report", "target"], "not JSON"),
        (["report", "a.json", "b.json"], "more than one file"),
    ]
    # Many files in one run: bounded by their nodes together (17 x 64 > 1024), refused up
    # front (it ended with exit 3 when the process ran out of stacks or memory).
    nodes = [f"N{i}" for i in range(64)]
    many = []
    for i in range(17):
        many.append(f"many{i}.json")
        with open(many[-1], "w") as f:
            f.write('{"name": "m%d", "nodes": %s, "steps": []}' % (i, str(nodes).replace("'", '"')))
    refused.append((["run"] + many + ["--quiet"], "more than the 1024 one run simulates"))
    for args, needle in refused:
        run(args, 2, needle)
    if not stat.S_ISFIFO(os.lstat("fifo").st_mode):
        fail("the FIFO was replaced")
    if not os.path.islink("dangling") or os.path.exists("missing"):
        fail("a refused output was created")
    for f in ("r.json", "w.vcd", "dir/r.json", "t2.json"):
        if os.path.exists(f):
            fail(f"{f} written by a refused run")

    # Through a link to a regular file: the target is written, the link stays a link. --vcd
    # without ".vcd" goes through SystemC's NAME.vcd and is moved onto the link's target.
    run(["run", "q.json", "--out", "link", "--quiet"], 0)
    if not os.path.islink("link") or not open("target").read().startswith("{"):
        fail("--out through a link: link replaced or target not written")
    os.remove("target")
    open("target", "w").close()
    run(["run", "q.json", "--vcd", "link", "--quiet"], 0)
    if not os.path.islink("link") or not open("target").read().startswith("$date"):
        fail("--vcd through a link: link replaced or target not written")
    if os.path.exists("link.vcd"):
        fail("--vcd left its intermediate file")
    # A regular file is replaced; a new one is created.
    run(["run", "q.json", "--out", "r.json", "--trace", "t.json", "--vcd", "w", "--quiet"], 0)
    for f in ("r.json", "t.json", "w"):
        if not os.path.isfile(f) or os.path.getsize(f) == 0:
            fail(f"{f} not written")
    if open("q.json", "rb").read() != original:
        fail("the input scenario changed")
    print(f"outputs: {len(refused)} refused command lines, links kept, input unchanged")
    print("outputs: PASS")


main()
