# SPDX-License-Identifier: Apache-2.0
"""The sweep's grid: --grid and --zip keys (config keys, the preset, scenario fields
steps[N].a.b), their values checked through `rnicsim validate`, and the points they make."""
import copy
import hashlib
import itertools
import json
import os
import re
import subprocess
import tempfile

from rnicsim import binary, cli
from rnicsim.results import SCENARIO_FILE, set_args

from .common import UsageError

# steps[N].a.b, steps[N,M].a.b (the same field of several steps), steps[N].flows[K].qps
STEP_KEY = re.compile(r"^steps\[(-?\d+(?:,-?\d+)*)\]((?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?)*"
                      r"\.[A-Za-z_][A-Za-z0-9_]*)$")
FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?$")


def parse_value(text):
    """A grid value for a scenario field: an integer, a real, else a string."""
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def resolve_step_path(scenario, key):
    """([step index, ...], [(field, list index or None), ...]) for steps[N].a.b,
    steps[N,M,...].a.b (the same field of several steps, set together) or steps[N].a[K].b (an
    element of a list such as a traffic step's flows), checked against the scenario; None if
    not such a key."""
    m = STEP_KEY.match(key)
    if not m:
        return None
    steps = scenario.get("steps", [])
    fields = []
    for token in m.group(2)[1:].split("."):
        name, index = FIELD.match(token).groups()
        fields.append((name, None if index is None else int(index)))
    indices = []
    for n in (int(t) for t in m.group(1).split(",")):
        if not -len(steps) <= n < len(steps):
            raise UsageError(f"grid key {key}: the scenario has {len(steps)} steps")
        index = n % len(steps)
        node = steps[index]
        for depth, (field, element) in enumerate(fields[:-1]):
            path = ".".join(f for f, _ in fields[:depth + 1])
            node = node.get(field)
            if element is not None:
                if not isinstance(node, list) or element >= len(node):
                    raise UsageError(f"grid key {key}: step {index} ({steps[index].get('op')}) "
                                     f"has no {path}[{element}]")
                node = node[element]
            if not isinstance(node, dict):
                raise UsageError(f"grid key {key}: step {index} ({steps[index].get('op')}) has "
                                 f"no object {path}" + (f"[{element}]" if element is not None
                                                        else ""))
        indices.append(index)
    return indices, fields


# Step fields that are JSON arrays even when the step leaves them out (op_flags in the
# schema): a grid value for them is a list, A+B (see field_value()).
ARRAY_FIELDS = ("flags",)
EMPTY_ARRAY = ("none", "[]")


def field_value(text, array):
    """A grid value as the step field takes it: for an array field (flags), `A+B` is
    ["A", "B"] and `none` (or `[]`) is [] (an integer stays one: flags' bitmask form); else
    parse_value(text). Values that are already not text (a test's 64) pass through."""
    if not isinstance(text, str):
        return text
    if not array:
        return parse_value(text)
    if text.strip() in EMPTY_ARRAY:
        return []
    value = parse_value(text)
    if isinstance(value, int):
        return value
    return [parse_value(item.strip()) for item in text.split("+")]


def set_step_field(scenario, indices, fields, value):
    """Sets the field in each step; a text value becomes a list when the field is an array
    (a flags field, or one the step holds as a list), else a number when it reads as one."""
    for index in indices:
        node = scenario["steps"][index]
        for field, element in fields[:-1]:
            node = node[field] if element is None else node[field][element]
        name = fields[-1][0]
        node[name] = field_value(value, name in ARRAY_FIELDS or isinstance(node.get(name), list))


def parse_grid(specs, scenario, known_keys, option="--grid", taken=()):
    """[(key, kind, [values], path)] from KEY=V1,V2,... specs."""
    grid = []
    for spec in specs:
        key, eq, values = spec.partition("=")
        key = key.strip()
        if not eq or not key:
            raise UsageError(f"{option} {spec!r}: expected KEY=V1,V2,...")
        items = [v.strip() for v in values.split(",")]
        if not values.strip() or any(not v for v in items):
            raise UsageError(f"{option} {key}: empty value in {values!r}")
        if len(set(items)) != len(items):
            raise UsageError(f"{option} {key}: repeated value in {values!r}")
        if any(g[0] == key for g in grid) or key in taken:
            raise UsageError(f"{key} given twice (--grid / --zip)")
        path = resolve_step_path(scenario, key)
        if key == "preset":  # the file's config.preset: a NIC generation per point
            grid.append((key, "preset", items, None))
        elif path is not None:
            grid.append((key, "step", items, path))
        elif key in known_keys:
            grid.append((key, "config", items, None))
        else:
            raise UsageError(f'unknown grid key "{key}"' + cli.did_you_mean(
                key, known_keys, ": not a config key (see `rnicsim params`) nor a scenario "
                "field steps[N].FIELD"))
    return grid


def parse_zip(specs, scenario, known_keys, grid_keys):
    """The --zip keys, as parse_grid() entries, checked to have as many values each."""
    zipped = parse_grid(specs, scenario, known_keys, "--zip", grid_keys)
    lengths = {len(z[2]) for z in zipped}
    if len(lengths) > 1:
        raise UsageError("--zip keys need the same number of values: " + ", ".join(
            f"{z[0]} has {len(z[2])}" for z in zipped))
    return zipped


def validate_values(exe, scenario_path, scenario, grid, sets):
    """Every config value alone, and every scenario-field value alone, through `rnicsim
    validate`: a bad value is an argument error (exit 2) before anything runs."""
    def check(text, extra, what):
        try:
            with tempfile.TemporaryDirectory(prefix="rnicsim-sweep-") as tmp:
                path = os.path.join(tmp, SCENARIO_FILE)  # the package's name, not the user's
                with open(path, "w") as f:
                    f.write(text)
                proc = subprocess.run([exe, "validate", path, "--quiet"] + extra,
                                      capture_output=True, text=True, env=binary.env())
        except OSError as e:
            raise UsageError(f"{what}: cannot run {exe} validate: {e}") from e
        if proc.returncode != 0:
            message = proc.stderr.strip().replace(path, os.path.basename(scenario_path))
            raise UsageError(f"{what}: {message}")

    base_text = json.dumps(scenario, indent=1)
    base_sets = set_args(sets)
    check(base_text, base_sets, "scenario")
    for key, kind, values, path in grid:
        for value in values:
            if kind == "config":
                check(base_text, base_sets + ["--set", f"{key}={value}"], f"--grid {key}={value}")
            else:
                modified = copy.deepcopy(scenario)
                apply_field(modified, kind, path, value)
                check(json.dumps(modified, indent=1), base_sets, f"--grid {key}={value}")


def apply_field(scenario, kind, path, value):
    """Sets a grid key that lives in the file: a step's field, or the config preset."""
    if kind == "preset":
        scenario.setdefault("config", {})["preset"] = value
    else:
        set_step_field(scenario, path[0], path[1], value)


def combinations(grid, zipped):
    """[{key: value}] in order: the cartesian product of the grid keys' values, each crossed
    with the zip keys' values taken together (the zip list varies fastest)."""
    factors = [[{key: v} for v in values] for key, _, values, _ in grid]
    if zipped:
        factors.append([{z[0]: z[2][i] for z in zipped} for i in range(len(zipped[0][2]))])
    return [dict(kv for part in combo for kv in part.items())
            for combo in itertools.product(*factors)]


def make_points(scenario, grid, zipped, sets, seed):
    points = []
    keys = grid + zipped
    for combo in combinations(grid, zipped):
        modified = copy.deepcopy(scenario)
        args = set_args(sets)
        if seed is not None:
            args += ["--seed", str(seed)]
        params = {}
        for key, kind, _, path in keys:
            value = combo[key]
            params[key] = value
            if kind == "config":
                args += ["--set", f"{key}={value}"]
            else:
                apply_field(modified, kind, path, value)
        text = json.dumps(modified, indent=1)
        points.append({"params": params, "text": text, "args": args,
                       "scenario_sha256": hashlib.sha256(text.encode()).hexdigest()})
    return points
