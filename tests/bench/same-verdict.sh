#!/bin/sh
# tests/bench/same-verdict.sh OLD_BIN NEW_BIN [SOURCE.csv...]
# Runs two builds' kp-hotspots, kp-decide and kp-report side by side on every
# fixture (each raw capture extracted once, by OLD_BIN's kp-extract, into a
# profile folder copied for both) and on the source pages named, and says
# whether stdout, stderr, the exit status and every file written are the same
# bytes.  For a change to the readers of metrics_summary.json, the rules or the
# source page: run it with main's bin/ and the branch's.
top=$(cd "$(dirname "$0")/../.." && pwd)
old=$(cd "$1" 2>/dev/null && pwd) new=$(cd "$2" 2>/dev/null && pwd)
[ -x "$old/kp-decide" ] && [ -x "$new/kp-decide" ] || { echo "usage: $0 OLD_BIN NEW_BIN [page.csv...]" >&2; exit 2; }
shift 2
LC_ALL=C TZ=UTC
export LC_ALL TZ
w=$(mktemp -d) || exit 4
trap 'rm -rf "$w"' EXIT INT TERM
n=0 bad=0 k_prof=none
# run ID CMD...: CMD with @BIN@ as each build's bin and @D@ as its folder
run() {
	r_id=$1
	shift
	for r_side in old new; do
		eval "r_b=\$$r_side"
		r_d=$w/$r_side/$r_id
		mkdir -p "$r_d"
		[ -d "$w/prof/$k_prof" ] && { rm -rf "$r_d/p"; cp -r "$w/prof/$k_prof" "$r_d/p"; }
		r_cmd=$(printf '%s' "$*" | sed "s|@BIN@|$r_b|g; s|@D@|$r_d|g")
		(cd "$r_d" && eval "$r_cmd" > "$r_d/stdout" 2> "$r_d/stderr"; echo $? > "$r_d/status")
		find "$r_d" -type f -newer "$w/stamp" | while read -r r_f; do
			sed "s|$r_d|D|g; s|$r_b|BIN|g" "$r_f" > "$r_f.t" && mv "$r_f.t" "$r_f"
		done
	done
	n=$((n + 1))
	if ! diff -r "$w/old/$r_id" "$w/new/$r_id" > "$w/diff" 2>&1; then
		bad=$((bad + 1))
		echo "DIFFERENT: $r_id: $*"
		head -20 "$w/diff"
	fi
}
touch "$w/stamp"
for f in "$top"/tests/fixtures/h200/*/*raw*.csv "$top"/tests/fixtures/h200/*/*/*raw*.csv \
    "$top"/tests/fixtures/live/*/*raw*.csv "$top"/tests/fixtures/live/*/*/*raw*.csv; do
	[ -f "$f" ] || continue
	id=$(printf '%s' "$f" | sed "s|^$top/||; s|[/.]|_|g")
	k_prof=$id
	mkdir -p "$w/prof/$id"
	"$old/kp-extract" -o "$w/prof/$id/details" "$f" > /dev/null 2>&1 || { rm -rf "$w/prof/$id"; continue; }
	sleep 0.01; touch "$w/stamp"
	run "$id" '@BIN@/kp-decide --metrics @D@/p/details/metrics_summary.json -o @D@/dec.json'
	run "$id.i0" '@BIN@/kp-decide --metrics @D@/p/details/metrics_summary.json --kernel-index 0 -o @D@/dec.json'
	run "$id.i99" '@BIN@/kp-decide --metrics @D@/p/details/metrics_summary.json --kernel-index 99'
	run "$id.k" '@BIN@/kp-decide --metrics @D@/p/details/metrics_summary.json --kernel nosuch'
	k=$(python3 -c 'import json,sys; ks=json.load(open(sys.argv[1]))["kernels"]; print(ks[-1]["name"])' "$w/prof/$id/details/metrics_summary.json" 2>/dev/null)
	[ -n "$k" ] && run "$id.kn" "@BIN@/kp-decide --metrics @D@/p/details/metrics_summary.json --kernel '$k' -o @D@/dec.json"
	run "$id.pipe" 'echo "{\"profile_dir\": \"@D@/p\"}" | @BIN@/kp-decide'
	run "$id.rep" '@BIN@/kp-report @D@/p'
	run "$id.rep2" '@BIN@/kp-decide --metrics @D@/p/details/metrics_summary.json -o @D@/p/details/bottleneck_decision.json && @BIN@/kp-report @D@/p'
	rm -rf "$w/prof/$id" "$w/old/$id"* "$w/new/$id"*
done
for d in "$top"/tests/fixtures/live/*/; do
	id=live_$(basename "$d")
	k_prof=$id
	mkdir -p "$w/prof/$id"
	cp -r "$d"/. "$w/prof/$id/"
	"$old/kp-extract" -o "$w/prof/$id/details" "$w/prof/$id"/details/0*_raw.csv > /dev/null 2>&1
	for s in "$w/prof/$id"/details/*source*; do
		[ -f "$s" ] && "$old/kp-hotspots" -o "$w/prof/$id/details/source_hotspots.csv" "$s" > /dev/null 2>&1
	done
	sleep 0.01; touch "$w/stamp"
	run "$id.pipe" 'echo "{\"profile_dir\": \"@D@/p\"}" | @BIN@/kp-decide'
	run "$id.rep" '@BIN@/kp-report @D@/p'
	rm -rf "$w/prof/$id"
done
for f in "$top"/tests/fixtures/h200/*/*source*.csv "$top"/tests/fixtures/h200/*/*/*source*.csv \
    "$top"/tests/fixtures/live/*/*source*.csv "$top"/tests/fixtures/live/*/*/*source*.csv "$@"; do
	[ -f "$f" ] || continue
	id=$(printf '%s' "$f" | sed "s|^$top/||; s|[/.]|_|g")
	k_prof=none
	run "$id.hs" "@BIN@/kp-hotspots -o @D@/hs.csv '$f'"
	run "$id.hs5" "@BIN@/kp-hotspots --top 5 -o @D@/hs.csv '$f'"
	run "$id.hsm" "@BIN@/kp-hotspots --metric nosuch -o @D@/hs.csv '$f'"
	run "$id.hsi" "@BIN@/kp-hotspots --input '$f'"
	rm -rf "$w/old/$id"* "$w/new/$id"*
done
echo "same-verdict: $n runs, $bad different"
[ "$bad" = 0 ]
