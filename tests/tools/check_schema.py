#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Validates scenario files against scenarios/schema.json (JSON Schema draft-07).

Every JSON file under scenarios/ (except the schema) must be valid, and every file of
tests/scenario/bad/ listed in SCHEMA_REJECTS must be rejected, either as unparsable JSON or by
the schema. The other bad files are only semantically bad (names defined by earlier steps,
object kinds, value ranges, the config-key table): rnicsim validate refuses them, the schema
cannot. Usage: check_schema.py [REPO_ROOT] [--report] (--report prints what the schema makes
of every bad file, to maintain the list).

Run with Debian's /usr/bin/python3 and python3-jsonschema (scripts/setup installs it).
"""
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("check_schema: needs python3-jsonschema (scripts/setup installs it); "
             "run with /usr/bin/python3")

# Bad files the schema (or the JSON parser) must reject, with the reason it can.
SCHEMA_REJECTS = {
    "bad-flag.json": "flag names are an enum",
    "deep-nesting.json": "steps must be objects",
    "empty.json": "not JSON",
    "missing-name.json": "name is required",
    "misspelt-metric.json": "workload metric names are an enum",
    "misspelt-status.json": "status names are an enum",
    "negative-size.json": "sizes are non-negative",
    "not-an-object.json": "the top level is an object",
    "step-not-object.json": "steps must be objects",
    "truncated.json": "not JSON",
    "unknown-field.json": "ops have a fixed set of fields",
    "unknown-config-key.json": "config.set keys are an enum (the params table)",
    "unknown-op.json": "op is an enum",
    "unknown-preset.json": "preset names are an enum",
    "unknown-status.json": "status names are an enum",
    "wrong-value-type.json": "field types",
}


def load(path):
    text = path.read_text(encoding="utf-8")
    return json.loads(text)


def problems(validator, path):
    """None when the file is valid, else a one-line reason."""
    try:
        document = load(path)
    except (ValueError, RecursionError) as error:
        return f"not JSON: {str(error)[:80]}"
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    first = errors[0]
    where = "/".join(str(p) for p in first.absolute_path) or "(top)"
    return f"{where}: {first.message[:120]}"


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parents[2])
    schema = json.loads((root / "scenarios" / "schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    failed = 0

    scenarios = sorted(p for p in (root / "scenarios").rglob("*.json") if p.name != "schema.json")
    for path in scenarios:
        reason = problems(validator, path)
        if reason:
            failed += 1
            print(f"FAIL {path.relative_to(root)} does not match the schema: {reason}")
    print(f"{len(scenarios) - failed}/{len(scenarios)} scenario files match the schema")

    bad_dir = root / "tests" / "scenario" / "bad"
    present = {p.name for p in bad_dir.glob("*.json")}
    for name in sorted(set(SCHEMA_REJECTS) - present):
        failed += 1
        print(f"FAIL tests/scenario/bad/{name} is listed in SCHEMA_REJECTS but does not exist")
    for name in sorted(present):
        reason = problems(validator, bad_dir / name)
        if "--report" in argv:
            print(f"  {name}: {reason or 'accepted by the schema (semantic only)'}")
        if name in SCHEMA_REJECTS and not reason:
            failed += 1
            print(f"FAIL tests/scenario/bad/{name} passes the schema ({SCHEMA_REJECTS[name]})")
    print(f"{len(SCHEMA_REJECTS)} schema-detectable bad files checked")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
