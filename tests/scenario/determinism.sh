#!/usr/bin/env bash
# Usage: determinism.sh RNICSIM SOURCE_DIR
# Same scenario + same seed => byte-identical results JSON apart from the top-level wall_s
# (host wall-clock time); another --seed changes random fills and random address patterns;
# results do not depend on which scenario ran before, in another process or in the same one
# (`rnicsim run` with several files: one simulation, a platform per file).
set -euo pipefail
rnicsim=$1
src=$2
dir=$src/tests/scenario/determinism
work=$(mktemp -d "${TMPDIR:-/tmp}/rnicsim-determinism.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run OUT WANT_STATUS FILE [ARGS...]: rnicsim run FILE --out OUT, which must exit WANT_STATUS;
# then OUT.stripped is OUT without its wall_s line.
run() {
  local out=$1 want=$2 file=$3
  shift 3
  local got=0
  "$rnicsim" run "$file" --quiet --out "$out" "$@" 2>"$out.stderr" || got=$?
  if [ "$got" != "$want" ]; then
    fail "rnicsim run $file $* exited $got, expected $want"
    cat "$out.stderr"
  fi
  run_strip "$out"
}

# run_strip OUT: OUT.stripped is OUT without its wall_s line (exactly one).
run_strip() {
  python3 - "$1" <<'EOF'
import re, sys
path = sys.argv[1]
with open(path, "rb") as f:
    lines = f.read().split(b"\n")
keep = [l for l in lines if not re.fullmatch(rb'  "wall_s": [-+0-9.eE]+,?', l)]
if len(lines) - len(keep) != 1:
    sys.exit(f"{path}: expected exactly one top-level wall_s line, found {len(lines) - len(keep)}")
with open(path + ".stripped", "wb") as f:
    f.write(b"\n".join(keep))
EOF
}

same() {  # same A B WHAT
  if cmp -s "$1.stripped" "$2.stripped"; then
    echo "ok: $3"
  else
    fail "$3"
    diff "$1.stripped" "$2.stripped" | head -20
  fi
}

# field FILE PYTHON_EXPR: prints the expression evaluated on the results JSON `d`.
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

workload=$dir/random-workload.json
probe=$dir/random-fill-probe.json
quickstart=$src/scenarios/quickstart.json

# 1. Same seed, twice: identical. The file's seed (5) and --seed 5 are the same run.
run "$work/w5a.json" 0 "$workload" --seed 5
run "$work/w5b.json" 0 "$workload" --seed 5
run "$work/w5c.json" 0 "$workload"
same "$work/w5a.json" "$work/w5b.json" "random workload, --seed 5 twice"
same "$work/w5a.json" "$work/w5c.json" "random workload, the file's seed 5 and --seed 5"
run "$work/q1.json" 0 "$quickstart"
run "$work/q2.json" 0 "$quickstart"
same "$work/q1.json" "$work/q2.json" "quickstart twice"
# Many QPs at once, the next QP drawn at random: the same seed gives the same run.
traffic=$src/scenarios/examples/traffic-all-to-all.json
run "$work/t5a.json" 0 "$traffic" --seed 5
run "$work/t5b.json" 0 "$traffic" --seed 5
same "$work/t5a.json" "$work/t5b.json" "traffic with random QP selection, --seed 5 twice"
run "$work/t6.json" 0 "$traffic" --seed 6
if [ "$(field "$work/t5a.json" 'd["steps"][0]["metrics"]')" = \
     "$(field "$work/t6.json" 'd["steps"][0]["metrics"]')" ]; then
  fail "traffic: --seed 6 gives the same metrics as --seed 5"
else
  echo "ok: traffic, --seed 6 differs from --seed 5"
fi

# 2. Another seed changes what is random: the workload's steps (addresses, so latencies and
# cache counters) and a random fill's bytes (the probe fails on purpose and shows them).
run "$work/w6.json" 0 "$workload" --seed 6
steps5=$(field "$work/w5a.json" 'json.dumps(d["steps"], sort_keys=True)')
steps6=$(field "$work/w6.json" 'json.dumps(d["steps"], sort_keys=True)')
if [ "$steps5" = "$steps6" ]; then
  fail "random workload: --seed 6 gives the same steps as --seed 5"
else
  echo "ok: random workload, --seed 6 differs from --seed 5"
fi
run "$work/p1a.json" 1 "$probe" --seed 1
run "$work/p1b.json" 1 "$probe" --seed 1
run "$work/p2.json" 1 "$probe" --seed 2
same "$work/p1a.json" "$work/p1b.json" "random fill probe, --seed 1 twice"
got1=$(field "$work/p1a.json" 'd["steps"][1]["got"]')
got2=$(field "$work/p2.json" 'd["steps"][1]["got"]')
if [ -z "$got1" ] || [ "$got1" = "$got2" ]; then
  fail "random fill: --seed 1 gives \"$got1\", --seed 2 gives \"$got2\""
else
  echo "ok: random fill differs between seeds ($got1 vs $got2)"
fi

# 3. Order: across processes (no state leaks through files), quickstart then the workload
# and the workload then quickstart.
mkdir "$work/order1" "$work/order2"
run "$work/order1/q.json" 0 "$quickstart"
run "$work/order1/w.json" 0 "$workload"
run "$work/order2/w.json" 0 "$workload"
run "$work/order2/q.json" 0 "$quickstart"
same "$work/order1/q.json" "$work/order2/q.json" "quickstart, before or after the workload"
same "$work/order1/w.json" "$work/order2/w.json" "workload, before or after quickstart"
same "$work/order1/q.json" "$work/q1.json" "quickstart, same as its first run"

# 4. Order within one process: `rnicsim run F1 F2 ...` simulates the files together, each on
# a platform of its own (all name their nodes A and B). Each file's results must be those of
# its lone run, whatever the order; the probe fails (exit 1), so the run exits 1.
run "$work/p0.json" 1 "$probe"
together() {  # together DIR FILE...: one process, --out-dir DIR, exit 1 expected
  local dir=$1 got=0
  shift
  mkdir "$dir"
  "$rnicsim" run "$@" --quiet --out-dir "$dir" 2>"$dir.stderr" || got=$?
  if [ "$got" != 1 ]; then
    fail "rnicsim run $* exited $got, expected 1 (the probe's)"
    cat "$dir.stderr"
  fi
  local f
  for f in "$dir"/*.json; do run_strip "$f"; done
}
together "$work/one1" "$quickstart" "$workload" "$probe"
together "$work/one2" "$probe" "$workload" "$quickstart"
# The same JSON as alone, but for deltas_per_op: delta cycles are the shared kernel's, and a
# run of several leaves them out of each step's metrics (and wall_s, the whole run's).
as_alone() {  # as_alone TOGETHER ALONE WHAT
  if python3 - "$1" "$2" <<'EOF'
import json, sys
together, alone = (json.load(open(p)) for p in sys.argv[1:3])
for d in (together, alone):
    d.pop("wall_s")
for step in alone["steps"]:
    step.get("metrics", {}).pop("deltas_per_op", None)
if any("deltas_per_op" in s.get("metrics", {}) for s in together["steps"]):
    sys.exit("deltas_per_op reported in a shared simulation")
sys.exit(0 if together == alone else 1)
EOF
  then
    echo "ok: $3"
  else
    fail "$3"
  fi
}
for order in one1 one2; do
  as_alone "$work/$order/quickstart.json" "$work/q1.json" "quickstart in one process ($order), as alone"
  as_alone "$work/$order/random-workload.json" "$work/w5c.json" "workload in one process ($order), as alone"
  as_alone "$work/$order/random-fill-probe.json" "$work/p0.json" "probe in one process ($order), as alone"
done
# And byte-identical between the two orders.
same "$work/one1/random-workload.json" "$work/one2/random-workload.json" "workload, both orders in one process"
same "$work/one1/quickstart.json" "$work/one2/quickstart.json" "quickstart, both orders in one process"

if [ "$failures" != 0 ]; then
  echo "determinism: $failures check(s) failed"
  exit 1
fi
echo "determinism: PASS"
