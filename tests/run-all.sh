#!/bin/sh
# The whole suite: unit programs, command-line cases, documentation checks,
# the bad-input matrix, the lint of the check files (assertions that can never fail).
# Prints each part's summary, then one total line: "total: N passed, M failed".
top=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp)
status=0
sh "$top/tests/run-unit.sh" "$@" 2>&1 | tee -a "$log" || status=1
sh "$top/tests/run-cli.sh" 2>&1 | tee -a "$log" || status=1
sh "$top/tests/run-docs.sh" 2>&1 | tee -a "$log" || status=1
sh "$top/tests/bad/run.sh" 2>&1 | tee -a "$log" || status=1
sh "$top/tests/run-lint.sh" 2>&1 | tee -a "$log" || status=1
# Unit programs report checks, the runners report files/cases: add up the cases.
pass=$(sed -n 's/^[a-z]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
fail=$(sed -n 's/^[a-z]*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log" | awk '{s+=$1} END {print s+0}')
rm -f "$log"
echo "total: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$status" -eq 0 ]
