#!/bin/sh
# Documentation checks: every tests/docs/*.sh script, run from the repository root.
cd "$(dirname "$0")/.." || exit 2
pass=0 fail=0
for t in tests/docs/*.sh; do
	[ -f "$t" ] || continue
	if sh "$t" >/tmp/kp-doccheck.$$ 2>&1; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL: $t"; tail -20 /tmp/kp-doccheck.$$; fi
done
rm -f /tmp/kp-doccheck.$$
echo "docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
