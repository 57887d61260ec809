#!/bin/sh
# Every repository path that SKILL.md, README.md and the man pages cite must exist,
# and every man page must be clean under mandoc -Tlint.
# Run from the repository root; the last line is "N passed, M failed".
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# Paths: tokens that start with a top-level folder of this repository.
for doc in SKILL.md README.md man/*.[157]; do
	for p in $(grep -o '\(references\|docs\|scripts\|examples\|tests\|man\|cmd\|lib\)/[A-Za-z0-9_./*-]*' "$doc" |
	    sed 's/[.,)]*$//' | sort -u); do
		case $p in
		*'<'* | *'*'*) continue ;;
		esac
		if [ -e "$p" ]; then ok; else bad "$doc cites $p, which does not exist"; fi
	done
done

# Every program has a man page, and every man page lints clean.
for c in cmd/*.c cmd/*.sh; do
	n=$(basename "$c"); n=${n%.*}
	if [ -f "man/$n.1" ]; then ok; else bad "no man page man/$n.1 for $c"; fi
done
if command -v mandoc >/dev/null 2>&1; then
	for m in man/*.[157]; do
		out=$(mandoc -Tlint -W warning "$m" 2>&1)
		if [ -z "$out" ]; then ok; else bad "mandoc -Tlint $m: $out"; fi
	done
else
	bad "mandoc not installed (apt-get install mandoc)"
fi

# SKILL.md has front matter with a name and a description.
if head -1 SKILL.md | grep -q '^---$' && grep -q '^name: ' SKILL.md && grep -q '^description: ' SKILL.md; then
	ok
else
	bad "SKILL.md lacks front matter with name and description"
fi

# The README's quick start: one fenced block holding exactly two command lines.
n=$(awk '/^## Quick start/ {q = 1} q && /^```/ {f++; next} q && f == 1 && !/^#/ && NF {c++} f == 2 {print c + 0; exit}' README.md)
if [ "$n" = 2 ]; then ok; else bad "README quick start has $n command lines, expected 2"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
