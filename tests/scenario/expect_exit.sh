#!/usr/bin/env bash
# Usage: expect_exit.sh STATUS COMMAND...: passes when COMMAND exits with STATUS and, for a
# refused file (STATUS 2) or failed expectation (STATUS 1), printed a message on stderr.
# RNICSIM_TEST_MEMORY_KB: run COMMAND with at most that much address space (ulimit -v), so a
# refused file that would allocate before it is refused fails here; not under ASan (its
# shadow memory needs terabytes of address space).
# RNICSIM_EXPECT_STDERR: a file whose every non-empty line stderr must contain (as written).
# RNICSIM_EXPECT_MESSAGE: stderr must also contain this text (the reason, not just a reason).
set -u
want=$1; shift
if [ -n "${RNICSIM_TEST_MEMORY_KB:-}" ] && [ -z "${ASAN_OPTIONS:-}" ]; then
  ulimit -v "$RNICSIM_TEST_MEMORY_KB"
fi
err=$(mktemp)
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$@" 2>"$err"
got=$?
msg=$(cat "$err"); rm -f "$err"
if [ "$got" != "$want" ]; then
  echo "expected exit $want, got $got: $*"; echo "$msg"; exit 1
fi
if [ "$want" != 0 ] && [ -z "$msg" ]; then
  echo "exit $got but no message on stderr: $*"; exit 1
fi
if [ -n "${RNICSIM_EXPECT_STDERR:-}" ]; then
  [ -r "$RNICSIM_EXPECT_STDERR" ] || { echo "cannot read $RNICSIM_EXPECT_STDERR"; exit 1; }
  while IFS= read -r line || [ -n "$line" ]; do
    [ -z "$line" ] && continue
    if ! grep -qF -- "$line" <<<"$msg"; then
      echo "stderr lacks the expected line: $line"; echo "stderr: $msg"; exit 1
    fi
  done <"$RNICSIM_EXPECT_STDERR"
fi
if [ -n "${RNICSIM_EXPECT_MESSAGE:-}" ] && [[ "$msg" != *"$RNICSIM_EXPECT_MESSAGE"* ]]; then
  echo "stderr lacks \"$RNICSIM_EXPECT_MESSAGE\": $*"; echo "$msg"; exit 1
fi
[ -n "$msg" ] && echo "$msg"
exit 0
