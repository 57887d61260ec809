#!/bin/sh
# Command-line tests, kept as data (the jq way): each folder tests/cli/NAME/ holds
#   cmd      a shell snippet, run by sh in a fresh empty temporary folder, with the
#            programs of bin/ first on PATH and $FIX set to tests/fixtures
#   status   the expected exit status (0 when absent)
#   stdout   the expected standard output, exactly (not compared when absent)
#   stderr   the expected standard error, exactly (not compared when absent)
#   check    optional: a shell snippet run afterwards in the same folder under
#            sh -e (every command must succeed); it must
#            exit 0 (for output files, their contents, what must not exist)
# Usage: tests/run-cli.sh [NAME...]
top=$(cd "$(dirname "$0")/.." && pwd)
FIX=$top/tests/fixtures
PATH=$top/bin:$top/tests/bin:$PATH
LC_ALL=C
TZ=UTC
export FIX PATH LC_ALL TZ
pass=0 fail=0
if [ $# -eq 0 ]; then set -- $(ls "$top/tests/cli"); fi
for name in "$@"; do
	d=$top/tests/cli/$name
	[ -f "$d/cmd" ] || continue
	tmp=$(mktemp -d)
	want=0
	[ -f "$d/status" ] && want=$(cat "$d/status")
	(cd "$tmp" && sh "$d/cmd" >"$tmp/.stdout" 2>"$tmp/.stderr" </dev/null)
	got=$?
	why=
	[ "$got" = "$want" ] || why="exit status $got, expected $want"
	if [ -z "$why" ] && [ -f "$d/stdout" ] && ! cmp -s "$d/stdout" "$tmp/.stdout"; then
		why="stdout differs:
$(diff "$d/stdout" "$tmp/.stdout" | head -20)"
	fi
	if [ -z "$why" ] && [ -f "$d/stderr" ] && ! cmp -s "$d/stderr" "$tmp/.stderr"; then
		why="stderr differs:
$(diff "$d/stderr" "$tmp/.stderr" | head -20)"
	fi
	if [ -z "$why" ] && [ -f "$d/check" ]; then
		out=$(cd "$tmp" && sh -e "$d/check" 2>&1) || why="check failed: $out"
	fi
	if [ -z "$why" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: cli/$name: $why"
		echo "  stderr: $(head -c 600 "$tmp/.stderr")"
	fi
	rm -rf "$tmp"
done
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
