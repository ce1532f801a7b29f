# SPDX-License-Identifier: Apache-2.0
"""Building scenarios in Python: loops and helpers instead of hand-written steps. A Scenario
holds the same dict the loader reads from a JSON file (name, description, config, steps), so
anything the format has can be written with step(); the helpers cover the common set-ups.

    from rnicsim import Scenario
    s = Scenario("reads", config={"monitor.enabled": 0})
    p = s.two_nodes(remote_size=64 << 20)            # A reads from B: PD, CQ, QP, MRs
    for span in (1 << 20, 16 << 20):                 # a loop: a measured stream per span
        s.read_stream(p.qp, count=2000, size=64, sgl=p.local_mr, remote=p.remote_mr,
                      span=span, pattern="random")
    s.write("reads.json"); s.validate(); r = s.run(set={"mtt.cache_entries": 64})

The format itself has no loops (its contract stays as docs/scenario-format.md describes it):
loop here.
"""
import json
import os
import subprocess
import tempfile

from .binary import env, find_rnicsim
from .errors import EXIT_REFUSED, Error, RunError, ScenarioError, ValidationError
from .results import SCENARIO_FILE, exit_text, label, set_args
from .results import run as _run

READ_SINK_FLAGS = ("ALLOW_LOCAL_WRITE", "RDMA_READ_SINK")
READ_SOURCE_FLAGS = ("ALLOW_LOCAL_WRITE", "ALLOW_REMOTE_READ")


class Pair:
    """The names two_nodes() gave: qp (on a), peer (on b), pds, cqs, the buffers and MRs."""

    def __init__(self, **names):
        self.__dict__.update(names)

    def __repr__(self):
        return "Pair(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


class Scenario:
    """A scenario under construction: name, description, config.set / preset, steps."""

    def __init__(self, name, description=None, config=None, preset=None, seed=None):
        self.name, self.description, self.seed = name, description, seed
        self.config = dict(config or {})
        self.preset = preset
        self.steps = []

    # -- raw steps ------------------------------------------------------------------------

    def step(self, op, **fields):
        """Appends {"op": op, **fields} (fields whose value is None are left out) and returns
        it; its index in steps[] (for a sweep's steps[N].FIELD) is index(step)."""
        entry = {"op": op}
        entry.update({k: v for k, v in fields.items() if v is not None})
        self.steps.append(entry)
        return entry

    def add(self, *steps):
        """Appends step dicts as they are."""
        self.steps.extend(dict(s) for s in steps)
        return self

    def index(self, step):
        """The index in steps[] of a step this scenario holds (by identity)."""
        for i, s in enumerate(self.steps):
            if s is step:
                return i
        raise Error(f"scenario {self.name!r}: the step {step!r} is not one of its steps")

    # -- objects ----------------------------------------------------------------------------

    def alloc(self, node, name, size, fill=None):
        return self.step("alloc", node=node, name=name, size=size, fill=fill)

    def pd(self, node, name):
        return self.step("create_pd", node=node, name=name)

    def cq(self, node, name, depth=1024):
        return self.step("create_cq", node=node, name=name, depth=depth)

    def qp(self, name, pd, cq, send_depth=256, recv_depth=16, ord=16, ird=16):  # noqa: A002
        return self.step("create_qp", name=name, pd=pd, cq=cq, send_depth=send_depth,
                         recv_depth=recv_depth, ord=ord, ird=ird)

    def connect(self, qp, peer):
        return self.step("connect", qp=qp, peer=peer)

    def mr(self, name, pd, buffer, length, flags, offset=0):
        """create_mr and register_mr of buffer[offset, offset + length)."""
        self.step("create_mr", name=name, pd=pd)
        return self.step("register_mr", mr=name, buffer=buffer, offset=offset, length=length,
                         flags=list(flags))

    def two_nodes(self, a="A", b="B", local_size=65536, remote_size=1 << 20, remote_fill=None,
                  local_flags=READ_SINK_FLAGS, remote_flags=READ_SOURCE_FLAGS, cq_depth=1024,
                  send_depth=256, recv_depth=16, ord=16, ird=16):  # noqa: A002
        """The usual set-up of a two-node stream: buffer `sink` on a (local_size) and `src` on
        b (remote_size, remote_fill), a PD, CQ and QP per node (pdA, cqA, qpA...), the QPs
        connected, each buffer registered whole (mrA, mrB with the given flags; by default
        a reads from b: add ALLOW_REMOTE_WRITE to remote_flags to write too). Returns a Pair:
        qp, peer, pd, peer_pd, cq, peer_cq, local, remote (buffers), local_mr, remote_mr."""
        p = Pair(qp=f"qp{a}", peer=f"qp{b}", pd=f"pd{a}", peer_pd=f"pd{b}", cq=f"cq{a}",
                 peer_cq=f"cq{b}", local="sink", remote="src", local_mr=f"mr{a}",
                 remote_mr=f"mr{b}")
        self.alloc(a, p.local, local_size)
        self.alloc(b, p.remote, remote_size, fill=remote_fill)
        self.pd(a, p.pd)
        self.pd(b, p.peer_pd)
        self.cq(a, p.cq, cq_depth)
        self.cq(b, p.peer_cq, cq_depth)
        for qp, pd, cq in ((p.qp, p.pd, p.cq), (p.peer, p.peer_pd, p.peer_cq)):
            self.qp(qp, pd, cq, send_depth, recv_depth, ord, ird)
        self.connect(p.qp, p.peer)
        self.mr(p.local_mr, p.pd, p.local, local_size, local_flags)
        self.mr(p.remote_mr, p.peer_pd, p.remote, remote_size, remote_flags)
        return p

    # -- workloads --------------------------------------------------------------------------

    def _stream(self, op, qp, count, size, outstanding, sgl, remote, span, pattern,
                remote_offset, signal_every, **extra):
        if isinstance(sgl, str):
            sgl = {"mr": sgl, "offset": 0}
        elif isinstance(sgl, (tuple, list)):
            sgl = {"mr": sgl[0], "offset": sgl[1]}
        if isinstance(remote, str):
            remote = {"target": remote, "offset": remote_offset}
            if span is not None:
                remote["span"] = span
            if pattern is not None:
                remote["pattern"] = pattern
        return self.step(op, qp=qp, count=count, size=size, outstanding=outstanding, sgl=sgl,
                         remote=remote, signal_every=signal_every, **extra)

    def read_stream(self, qp, count, size, sgl, remote, outstanding=16, span=None,
                    pattern=None, remote_offset=0, signal_every=1, **extra):
        """A read_stream step. sgl: an MR name (offset 0), (mr, offset) or the dict; remote:
        an MR/MW name (with remote_offset, span, pattern) or the dict. extra: flags, expect."""
        return self._stream("read_stream", qp, count, size, outstanding, sgl, remote, span,
                            pattern, remote_offset, signal_every, **extra)

    def write_stream(self, qp, count, size, sgl, remote, outstanding=16, span=None,
                     pattern=None, remote_offset=0, signal_every=1, **extra):
        """A write_stream step (arguments as read_stream's)."""
        return self._stream("write_stream", qp, count, size, outstanding, sgl, remote, span,
                            pattern, remote_offset, signal_every, **extra)

    def dma_bench(self, node, size, count, kind="read", window=65536, pattern="sequential",
                  outstanding=8, **extra):
        return self.step("dma_bench", node=node, kind=kind, size=size, count=count,
                         window=window, pattern=pattern, outstanding=outstanding, **extra)

    def poll(self, cq, count=1, expect=None, **extra):
        return self.step("poll", cq=cq, count=count, expect=expect, **extra)

    # -- output -----------------------------------------------------------------------------

    def to_dict(self):
        """The scenario as the loader reads it (a fresh copy)."""
        data = {"name": self.name}
        if self.description:
            data["description"] = self.description
        if self.seed is not None:
            data["seed"] = self.seed
        if self.config or self.preset:
            data["config"] = {}
            if self.preset:
                data["config"]["preset"] = self.preset
            if self.config:
                data["config"]["set"] = dict(self.config)
        try:
            data["steps"] = json.loads(json.dumps(self.steps))
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"scenario {self.name!r}: a step is not JSON: {e}") from e
        return data

    def json(self, indent=1):
        data = self.to_dict()
        try:
            return json.dumps(data, indent=indent) + "\n"
        except (TypeError, ValueError) as e:  # the config or the name
            raise ScenarioError(f"scenario {self.name!r}: not JSON: {e}") from e

    def write(self, path, indent=1):
        """Writes the scenario as a JSON file (what `rnicsim run PATH` reads) at `path`, the
        caller's; returns path."""
        text = self.json(indent)
        try:
            with open(path, "w") as f:
                f.write(text)
        except OSError as e:
            raise Error(f"cannot write the scenario to {path}: {e.strerror or e}") from e
        return path

    def validate(self, rnicsim=None, set=None):  # noqa: A002 (as run's)
        """`rnicsim validate` on the scenario; raises ValidationError (exit 2) with its
        message, RunError when rnicsim fails otherwise."""
        exe = find_rnicsim(rnicsim)
        text, args = self.json(), set_args(set or {})
        # A temporary file of the package's name: the scenario's name is data, not a path
        # ("../x" must not leave the folder); messages show it as `name`.
        name = label(self.name)
        try:
            with tempfile.TemporaryDirectory(prefix="rnicsim-builder-") as tmp:
                path = os.path.join(tmp, SCENARIO_FILE)
                with open(path, "w") as f:
                    f.write(text)
                proc = subprocess.run([exe, "validate", path, "--quiet", *args],
                                      capture_output=True, text=True, env=env())
        except OSError as e:
            raise RunError(f"rnicsim validate: cannot run {exe} on {name}: {e}") from e
        stderr = proc.stderr.replace(path, name)
        if proc.returncode == EXIT_REFUSED:
            raise ValidationError(f"rnicsim validate: {stderr.strip()}", proc.returncode, stderr)
        if proc.returncode != 0:
            raise RunError(f"rnicsim validate: {exit_text(proc.returncode)}: {stderr.strip()}",
                           proc.returncode, stderr)
        return True

    def run(self, set=None, seed=None, rnicsim=None, check=True):  # noqa: A002
        """rnicsim.run() on the scenario: returns Results."""
        return _run(self.to_dict(), set=set, seed=seed, rnicsim=rnicsim, check=check)
