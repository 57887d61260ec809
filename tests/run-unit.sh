#!/bin/sh
# Run every unit test program; check prints its own summary per suite.
# The last line is the total, in the form CI reads.
pass=0 fail=0
for t in "$@"; do
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $t"; fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
