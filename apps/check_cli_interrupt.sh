#!/usr/bin/env bash
# A run terminated mid-way says so and ends as terminated processes do.
#   check_cli_interrupt.sh TRELLIS DELAY ARGS...
# Starts `TRELLIS ARGS...`, sends SIGTERM after DELAY seconds, and checks:
# exit status 143 (killed by SIGTERM), "interrupted (SIGTERM)" on stderr,
# no library error (METIS traps SIGTERM into an error status of its own).
set -u
trellis="$1" delay="$2"
shift 2
out="$(mktemp)"
"$trellis" "$@" >"$out" 2>&1 &
pid=$!
sleep "$delay"
kill -TERM "$pid" 2>/dev/null || { echo "the run ended before ${delay} s: make it longer"; cat "$out"; exit 1; }
wait "$pid"
rc=$?
status=0
[ "$rc" = 143 ] || { echo "exit status $rc, expected 143 (SIGTERM)"; status=1; }
grep -q "interrupted (SIGTERM)" "$out" || { echo "no 'interrupted (SIGTERM)' in the output"; status=1; }
if grep -q "error" "$out"; then echo "an error was reported"; status=1; fi
[ $status = 0 ] || cat "$out"
rm -f "$out"
exit $status
