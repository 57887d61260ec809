#!/bin/sh
# make fuzz: build each tests/fuzz/fuzz_*.c with clang's libFuzzer + ASan/UBSan
# against the library sources, seed it with the fixtures, run it for
# FUZZ_SECONDS (default 60) each, and keep any crash under tests/fuzz/crashes/.
# Prints one line per target: executions, and crashes found.
# Usage: tests/fuzz/run.sh [NAME...]   (NAME: fuzz_csv, fuzz_target...; default all)
# Seeds: the fixtures, plus tests/fuzz/seeds/NAME/ where it exists.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
secs=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang}
if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "fuzz: clang not found: apt-get install clang libclang-rt-14-dev" >&2
	exit 4
fi
out=build/fuzz
mkdir -p "$out" tests/fuzz/crashes
# a known leak inside libfyaml itself (tests/fuzz/lsan.supp says which)
LSAN_OPTIONS="suppressions=$top/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DKP_VERSION=\"fuzz\" -DKP_DATADIR=\"/nonexistent\" -g -O1 -fsanitize=fuzzer,address,undefined -Ilib $(pkg-config --cflags libfyaml jansson)"
libs="$(pkg-config --libs libfyaml jansson) -lm"
status=0
[ $# -gt 0 ] || set -- $(ls tests/fuzz/fuzz_*.c | sed 's,.*/,,; s,\.c$,,')
for name in "$@"; do
	src=tests/fuzz/$name.c
	if ! $CLANG $flags -o "$out/$name" "$src" lib/*.c $libs 2>"$out/$name.build.log"; then
		echo "$name: build failed (see $out/$name.build.log)"
		status=1
		continue
	fi
	corpus=$out/$name.corpus
	mkdir -p "$corpus"
	case $name in
	fuzz_csv) find tests/fixtures/h200 -name '*.csv' -size -200k -exec cp {} "$corpus"/ \; ;;
	fuzz_source) find tests/fixtures -name 'source_*.csv' -size -200k -exec cp {} "$corpus"/ \; ;;
	fuzz_jsonl) printf '{"profile_dir":"profile/x","kind":"target"}\n' >"$corpus/rec.jsonl" ;;
	fuzz_rules) cp references/rules/*.yaml "$corpus"/ ;;
	*) find references tests/fixtures -name '*.yaml' -size -200k -exec cp {} "$corpus"/ \; 2>/dev/null ;;
	esac
	[ ! -d tests/fuzz/seeds/"$name" ] || cp tests/fuzz/seeds/"$name"/* "$corpus"/
	log=$out/$name.log
	"$out/$name" -max_total_time="$secs" -timeout=10 -max_len=65536 -artifact_prefix=tests/fuzz/crashes/"$name"- \
		"$corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
	crashes=$(ls tests/fuzz/crashes/"$name"-* 2>/dev/null | wc -l)
	echo "$name: ${execs:-?} executions in ${secs}s, $crashes crash files, exit $rc"
	[ "$rc" -eq 0 ] || status=1
done
exit $status
