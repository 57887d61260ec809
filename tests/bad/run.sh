#!/bin/sh
# The bad-input matrix (issue 11): every program that reads a file, fed every
# kind of bad file, and every program's output made to fail.
#
# Input cases, for each (program, input) pair of the table below:
#   missing dir empty garbage trunc shortrow long wrongpage utf8 nan inf neg dupcols
# Each must end with the expected status (3 unless the table says otherwise), one
# line on stderr that starts with the program's name and names the bad file, and
# leave the output the program would have written exactly as it was before
# (a sentinel "GOOD" file stands there) with no temporary file beside it.
#
# Output cases, for each program on good input:
#   unwritable  the output folder is below a regular file: status 4
#   nobody      run as nobody (setpriv) with a root-owned output folder: status 4
#   fulldisk    the output folder is a full 4 MiB tmpfs (unshare -m): status 4,
#               the earlier good output intact, no temporary left
#   devfull     stdout is /dev/full: non-zero, one message
#   closed      stdout is closed (>&-): non-zero, one message
#   epipe       stdout is a pipe nobody reads, SIGPIPE ignored: non-zero, one message
#   sigpipe     the same with SIGPIPE at its default: non-zero (killed or not)
# An environment that cannot give a case (no setpriv, no unshare) fails the case:
# nothing is skipped, with one exception: nobody runs a copy of the programs, the
# stand-in ncu, the references and the fixtures it needs (the checkout may lie
# below a folder only root may enter, /root/kp under 0700), put where nobody can
# reach them; when no such place exists (a temporary folder nobody can enter)
# the nobody cases are skipped, and the reason printed.
#
# Usage: tests/bad/run.sh [-v] [PATTERN]   (PATTERN: a grep -E on "program/input/case")
# Prints "bad: N passed, M failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
FIX=$top/tests/fixtures
PATH=$top/bin:$top/tests/bin:$PATH
LC_ALL=C
TZ=UTC
export FIX PATH LC_ALL TZ
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
pat=${1:-.}
pass=0 fail=0
work=$(mktemp -d)
trap 'rm -rf "$work" ${pub:+"$pub"}' EXIT INT TERM

# ---- good inputs, made once ----
good=$work/good
mkdir -p "$good/p/details" "$good/t"
cp "$FIX/h200/hgemm_v0/basic_raw.csv" "$good/raw.csv"
cp "$FIX/h200/hgemm_v0/source_cuda_sass.csv" "$good/source.csv"
cp "$top/references/rules/bottleneck_rules.yaml" "$good/rules.yaml"
cp "$FIX/h200/gemm_discovery/discovery_raw.csv" "$good/discovery.csv"
kp-extract -o "$good/p/details" "$good/raw.csv" >/dev/null &&
cp "$good/p/details/metrics_summary.json" "$good/summary.json" &&
kp-hotspots -o "$good/hotspots.csv" "$good/source.csv" >/dev/null &&
(cd "$good/t" && kp-gentarget --target-cmd './bench --iters 3' --kernel hgemm_byzj_v0 \
    --profile-id t >/dev/null 2>&1) &&
cp "$good/t/profile/t/profile-target.yaml" "$good/target.yaml" || {
	echo "bad: cannot make the good inputs"
	echo "bad: 0 passed, 1 failed"
	exit 1
}

# ---- bad inputs: $work/bad/KIND.CASE ----
bad=$work/bad
mkdir -p "$bad"
garbage() {	# deterministic binary bytes, NULs included
	i=0
	while [ $i -lt 64 ]; do
		printf '\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\3\0>\0\1\0\0\0\300\377\376"\n,\0"\r\033[2J'
		i=$((i + 1))
	done
}
# cut FILE: the first bytes of FILE up to just inside the first '"' after its middle
cut_mid() {
	half=$(($(wc -c <"$1") / 2))
	off=$(grep -b -o '"' "$1" | awk -F: -v h="$half" '$1 > h { print $1; exit }')
	head -c "$((${off:-$half} + 3))" "$1"
}
# csvcol FILE NAME VALUE: every data row's cell under header NAME set to VALUE
csvcol() {
	awk -v name="$2" -v val="$3" 'BEGIN { FS = "\",\""; OFS = "\",\"" }
	    !col && /^"/ { for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h); if (h == name) col = i } print; next }
	    col && /^"[0-9]/ { c = (col == NF) ? "\"" : ""; $col = (col == 1 ? "\"" : "") val c; print; next }
	    { print }' "$1"
}
longline() {	# a 10 MB single line: quoted (a CSV record) or bare
	head -c 10485760 /dev/zero | tr '\0' x | { [ "$1" = q ] && printf '"'; cat; [ "$1" = q ] && printf '"\n'; }
}
mkbad() {
	k=$1 src=$2
	: >"$bad/$k.empty"
	garbage >"$bad/$k.garbage"
	cut_mid "$src" >"$bad/$k.trunc"
	case $k in raw|source|hotspots|discovery) longline q ;; *) longline ;; esac >"$bad/$k.long"
}
for k in raw source hotspots discovery summary rules target; do
	case $k in
	summary) mkbad $k "$good/summary.json" ;;
	rules|target) mkbad $k "$good/$k.yaml" ;;
	hotspots|source|raw|discovery) mkbad $k "$good/$k.csv" ;;
	esac
done
# raw (and discovery) pages: a row cut after a whole field, wrong page, bad UTF-8,
# NaN/inf/negative durations, a duplicated column
for k in raw discovery; do
	src=$good/$k.csv
	{ sed -n '1,2p' "$src"; sed -n '3p' "$src" | cut -d, -f1-5 | tr -d '\n'; } >"$bad/$k.shortrow"
	cp "$good/source.csv" "$bad/$k.wrongpage"
	sed 's/hgemm_byzj_v0/hgemm_\xff\xfe_v0/' "$src" >"$bad/$k.utf8"
	csvcol "$src" gpu__time_duration.sum nan >"$bad/$k.nan"
	csvcol "$src" gpu__time_duration.sum inf >"$bad/$k.inf"
	csvcol "$src" gpu__time_duration.sum -1918432 >"$bad/$k.neg"
	sed '1s/"gpu__time_duration.sum"/"launch__grid_size"/' "$src" >"$bad/$k.dupcols"
done
# source page
src=$good/source.csv
{ sed -n '1,3p' "$src"; sed -n '4p' "$src" | cut -d, -f1-3 | tr -d '\n'; } >"$bad/source.shortrow"
cp "$good/raw.csv" "$bad/source.wrongpage"
sed 's/bench_gemm/bench_\xff\xfe_gemm/' "$src" >"$bad/source.utf8"
csvcol "$src" "Warp Stall Sampling (All Samples)" nan >"$bad/source.nan"
csvcol "$src" "Warp Stall Sampling (All Samples)" inf >"$bad/source.inf"
csvcol "$src" "Warp Stall Sampling (All Samples)" -5 >"$bad/source.neg"
sed '0,/"Source"/s/"Source"/"Address"/' "$src" >"$bad/source.dupcols"
# hotspots.csv (kp-hotspots' output, read by kp-decide and kp-report)
src=$good/hotspots.csv
{ sed -n '1,2p' "$src"; sed -n '3p' "$src" | cut -d, -f1-3 | tr -d '\n'; } >"$bad/hotspots.shortrow"
cp "$good/raw.csv" "$bad/hotspots.wrongpage"
sed '2s/bench_gemm/bench_\xff\xfe_gemm/' "$src" >"$bad/hotspots.utf8"
hdr=$(head -1 "$src")
for c in nan inf neg; do
	v=$c; [ $c = neg ] && v=-5
	sed "s/(All Samples),[0-9]*,/(All Samples),$v,/" "$src" >"$bad/hotspots.$c"
done
printf '%s,%s\n' "$hdr" "$(printf '%s\n' "$hdr" | cut -d, -f1)" >"$bad/hotspots.dupcols"
sed 1d "$src" | sed 's/$/,x/' >>"$bad/hotspots.dupcols"
# metrics_summary.json
src=$good/summary.json
cp "$good/p/details/metrics_extracted.jsonl" "$bad/summary.wrongpage"
sed 's/hgemm_byzj_v0/hgemm_\xff\xfe_v0/g' "$src" >"$bad/summary.utf8"
sed 's/"duration_ns": *[0-9.]*/"duration_ns":1e999/g' "$src" >"$bad/summary.inf"
sed 's/"duration_ns": *[0-9.]*/"duration_ns":"nan"/g' "$src" >"$bad/summary.nan"
sed 's/"duration_ns": *\([0-9.]*\)/"duration_ns":-\1/g' "$src" >"$bad/summary.neg"
sed 's/"duration_ns": *\([0-9.]*\)/"duration_ns":\1,"duration_ns":5/g' "$src" >"$bad/summary.dupcols"
# rules and target YAML
for k in rules target; do
	src=$good/$k.yaml
	case $k in rules) cp "$good/target.yaml" "$bad/rules.wrongpage" ;; target) cp "$good/rules.yaml" "$bad/target.wrongpage" ;; esac
	awk 'NR == 3 { print "# \377\376 not UTF-8: \377" } { print }' "$src" >"$bad/$k.utf8"
done
sed 's/^\(  *\)threshold: .*/\1threshold: .nan/' "$good/rules.yaml" >"$bad/rules.nan"
sed 's/^\(  *\)threshold: .*/\1threshold: .inf/' "$good/rules.yaml" >"$bad/rules.inf"
sed 's/^\(  *\)weight: .*/\1weight: -5/' "$good/rules.yaml" >"$bad/rules.neg"
awk '/^rules:/ && !d { print "rules: []"; d = 1 } { print }' "$good/rules.yaml" >"$bad/rules.dupcols"
sed 's/^  timeout_seconds: .*/  timeout_seconds: .nan/' "$good/target.yaml" >"$bad/target.nan"
sed 's/^  timeout_seconds: .*/  timeout_seconds: .inf/' "$good/target.yaml" >"$bad/target.inf"
sed 's/^  launch_count: .*/  launch_count: -1/' "$good/target.yaml" >"$bad/target.neg"
sed 's/^  name: hgemm_byzj_v0/  name: hgemm_byzj_v0\n  name: other/' "$good/target.yaml" >"$bad/target.dupcols"

# ---- the runner ----
# result NAME WHY: count and report
result() {
	if [ -z "$2" ]; then
		pass=$((pass + 1))
		[ $verbose = 1 ] && echo "ok: $1"
	else
		fail=$((fail + 1))
		echo "FAIL: bad/$1: $2"
	fi
	return 0
}
# onemsg FILE PROG [NAME]: stderr is one line, "PROG: ...", naming NAME, short
onemsg() {
	n=$(wc -l <"$1")
	[ "$n" -eq 1 ] || { echo "stderr has $n lines: $(head -c 300 "$1")"; return; }
	[ "$(wc -c <"$1")" -lt 2000 ] || { echo "stderr is $(wc -c <"$1") bytes"; return; }
	grep -q "^$2: " "$1" || { echo "stderr does not start with '$2: ': $(cat "$1")"; return; }
	[ -z "${3:-}" ] || grep -qF -- "$3" "$1" || echo "stderr does not name $3: $(cat "$1")"
}
# sentinel FILE...: each holds GOOD, and nothing else beside it changed
sentinel() {
	for f in "$@"; do
		[ "$(cat "$f" 2>/dev/null)" = GOOD ] || { echo "$f: overwritten or removed"; return; }
		left=$(ls -a "$(dirname "$f")" | grep -E '\.tmp|XXXX|^\.[^.]' | grep -v '^\.\.\?$' | head -3)
		[ -z "$left" ] || { echo "temporary files left: $left"; return; }
	done
}
# place KIND CASE DEST: put the bad input at DEST (missing: nothing; dir: a folder)
place() {
	mkdir -p "$(dirname "$3")"
	case $2 in
	missing) rm -rf "$3" ;;
	dir) mkdir -p "$3" ;;
	*) cp "$bad/$1.$2" "$3" ;;
	esac
}

# Each driver runs in a fresh folder: drv_PROG_INPUT CASE; sets $watch (sentinel
# files) and $named (what the message must name); exit status of the program.
drv_extract_raw() {
	place raw "$1" in.csv; mkdir -p out
	echo GOOD >out/metrics_summary.json; echo GOOD >out/metrics_all.json
	watch="out/metrics_summary.json out/metrics_all.json" named=in.csv
	kp-extract -o out in.csv >stdout 2>stderr
}
drv_hotspots_source() {
	place source "$1" in.csv; echo GOOD >out.csv
	watch=out.csv named=in.csv
	kp-hotspots -o out.csv in.csv >stdout 2>stderr
}
drv_decide_metrics() {
	place summary "$1" in.json; echo GOOD >out.json
	watch=out.json named=in.json
	kp-decide --metrics in.json -o out.json >stdout 2>stderr
}
drv_decide_rules() {
	place rules "$1" in.yaml; echo GOOD >out.json
	watch=out.json named=in.yaml
	kp-decide --rules in.yaml --metrics "$good/summary.json" -o out.json >stdout 2>stderr
}
drv_decide_hotspots() {
	place hotspots "$1" in.csv; echo GOOD >out.json
	watch=out.json named=in.csv
	kp-decide --hotspots in.csv --metrics "$good/summary.json" -o out.json >stdout 2>stderr
}
drv_gentarget_check() {
	place target "$1" in.yaml
	watch= named=in.yaml
	kp-gentarget --check in.yaml >stdout 2>stderr
}
drv_compare_summary() {
	mkdir -p base/details && cp "$good/summary.json" base/details/metrics_summary.json
	mkdir -p cur/details && place summary "$1" cur/details/metrics_summary.json
	echo GOOD >out.md
	watch=out.md named=cur
	[ "$1" = missing ] || [ "$1" = dir ] || named=cur/details/metrics_summary.json
	kp-compare --current cur --baseline base --output out.md >stdout 2>stderr
}
drv_report_summary() {
	place summary "$1" p/details/metrics_summary.json; echo GOOD >p/final_report.md
	watch=p/final_report.md named=p/details/metrics_summary.json
	kp-report p >stdout 2>stderr
}
drv_report_hotspots() {
	mkdir -p p/details && cp "$good/summary.json" p/details/metrics_summary.json
	place hotspots "$1" p/details/source_hotspots.csv; echo GOOD >p/final_report.md
	watch=p/final_report.md named=p/details/source_hotspots.csv
	kp-report p >stdout 2>stderr
}
drv_plot_summary() {
	place summary "$1" p/details/metrics_summary.json
	mkdir -p p/visual && echo GOOD >p/visual/profile_summary.gp
	watch=p/visual/profile_summary.gp named=p/details/metrics_summary.json
	kp-plot -n p >stdout 2>stderr
}
drv_collect_target() {
	place target "$1" in.yaml
	watch= named=in.yaml
	KP_FAKE_NCU_DIR=$FIX/h200/hgemm_v0 kp-collect in.yaml >stdout 2>stderr
	s=$?
	[ ! -e profile ] || { echo "profile folder made" >why; }
	return $s
}
drv_discover_target() {
	place target "$1" in.yaml
	watch= named=in.yaml
	KP_FAKE_NCU_DIR=$FIX/h200/gemm_discovery kp-discover in.yaml >stdout 2>stderr
	s=$?
	[ ! -e profile ] || { echo "profile folder made" >why; }
	return $s
}
drv_discover_csv() {
	place discovery "$1" in.csv
	mkdir -p d/details && echo GOOD >d/details/kernel_candidates.json
	watch=d/details/kernel_candidates.json named=in.csv
	kp-discover --from-csv in.csv --output-dir d >stdout 2>stderr
}

# The table: program input cases-with-other-status (CASE=STATUS,...).
# Cases a given input kind does not have (shortrow for JSON...) are left out.
csvcases="missing dir empty garbage trunc shortrow long wrongpage utf8 nan inf neg dupcols"
jsoncases="missing dir empty garbage trunc long wrongpage utf8 nan inf neg dupcols"
yamlcases="missing dir empty garbage trunc long wrongpage utf8 nan inf neg dupcols"
matrix() {
	cat <<'EOF'
extract raw csv
hotspots source csv
decide metrics json
decide rules yaml
decide hotspots csv
gentarget check yaml
compare summary json
report summary json
report hotspots csv
plot summary json
collect target yaml
discover target yaml
discover csv csv
EOF
}
# expect PROG INPUT CASE: the documented status
expect() {
	case $1/$2/$3 in
	*) echo 3 ;;
	esac
}
# lenient PROG INPUT CASE KIND: may the program accept this input (status 0)?
# Values a reader may take as data (a kernel name in bytes that are not UTF-8,
# "nan"/"inf" that ncu itself prints for an undefined metric, a negative value,
# a repeated column or key where the first or last wins), YAML cut where the rest
# parses (absent fields take their documented defaults), and kp-report's optional
# inputs (it reports from whatever the folder holds).  Accepted, the output must
# still be valid: every stdout line and every JSON output parses, with no NaN or
# Infinity in it.
lenient() {
	case $3 in utf8|nan|inf|neg|dupcols) return 0 ;; esac
	case $4/$3 in yaml/trunc) return 0 ;; esac
	case $1/$2/$3 in report/*/missing|report/*/dir) return 0 ;; esac
	return 1
}
# validout: stdout JSONL and the JSON files under the run folder are valid JSON
validout() {
	if [ -s stdout ] && ! jq -e . stdout >/dev/null 2>&1; then
		echo "stdout is not JSONL: $(head -c 200 stdout)"; return
	fi
	for f in $(find . -name '*.json' -newer stderr) stdout; do
		[ -s "$f" ] || continue
		if grep -qE '(^|[:,\[])-?(nan|NaN|inf|Infinity)([],}]|$)' "$f"; then
			echo "$f holds a NaN or Infinity: $(grep -oE '.{40}(nan|NaN|inf|Infinity).{10}' "$f" | head -1)"; return
		fi
		case $f in *.json) jq -e . "$f" >/dev/null 2>&1 || { echo "$f is not JSON"; return; } ;; esac
	done
}

matrix | while read -r prog input kind; do
	case $kind in csv) cases=$csvcases ;; json) cases=$jsoncases ;; yaml) cases=$yamlcases ;; esac
	for c in $cases; do
		name=$prog/$input/$c
		printf '%s\n' "$name" | grep -qE -- "$pat" || continue
		d=$(mktemp -d "$work/run.XXXXXX")
		(
			cd "$d" || exit 99
			watch= named=
			drv_${prog}_${input} "$c" </dev/null
			got=$?
			want=$(expect "$prog" "$input" "$c")
			why=
			if [ "$got" = 0 ] && lenient "$prog" "$input" "$c" "$kind"; then
				why=$(validout)
				printf '%s\n' "$why" >result
				exit 0
			fi
			[ "$got" = "$want" ] || why="exit status $got, expected $want; stderr: $(head -c 300 stderr)"
			[ -n "$why" ] || why=$(onemsg stderr "kp-$prog" "$named")
			[ -n "$why" ] || [ -z "$watch" ] || why=$(sentinel $watch)
			[ -n "$why" ] || [ ! -s why ] || why=$(cat why)
			[ -n "$why" ] || [ ! -s stdout ] || why="stdout not empty on failure: $(head -c 200 stdout)"
			printf '%s\n' "$why" >result
		)
		result "$name" "$(cat "$d/result" 2>/dev/null || echo 'driver failed')"
		rm -rf "$d"
	done
	echo "$pass $fail" >"$work/counts"
done
read -r pass fail <"$work/counts"

# ---- output cases ----
# outcmd PROG: a command line writing PROG's output below "$D"; outprep PROG: make
# "$D" hold an earlier good output (the sentinel); outwatch PROG: that file.
chmod 755 "$work" "$good" "$good/p" "$good/p/details"
outcmd() {
	case $1 in
	extract) echo 'kp-extract -o "$D" "$G/raw.csv"' ;;
	hotspots) echo 'kp-hotspots -o "$D/out.csv" "$G/source.csv"' ;;
	decide) echo 'kp-decide --metrics "$G/summary.json" -o "$D/out.json"' ;;
	compare) echo 'kp-compare --current "$G/p" --baseline "$G/p" --output "$D/out.md"' ;;
	report) echo 'kp-report "$D"' ;;
	plot) echo 'kp-plot -n "$D"' ;;
	discover) echo 'kp-discover --from-csv "$G/discovery.csv" --output-dir "$D"' ;;
	gentarget) echo 'kp-gentarget --target-cmd ./bench --kernel k --profile-id t2 --output-root "$D"' ;;
	collect) echo 'KP_FAKE_NCU_DIR=$FIX/h200/hgemm_v0 kp-collect --stages basic --output-dir "$D" "$G/target.yaml"' ;;
	esac
}
outwatch() {
	case $1 in
	extract) echo '$D/metrics_summary.json' ;;
	hotspots) echo '$D/out.csv' ;;
	decide) echo '$D/out.json' ;;
	compare) echo '$D/out.md' ;;
	report) echo '$D/final_report.md' ;;
	plot) echo '$D/visual/profile_summary.gp' ;;
	discover) echo '$D/details/kernel_candidates.json' ;;
	gentarget) echo '$D/t/profile-target.yaml' ;;
	collect) echo '$D/details/01_basic_raw.csv' ;;
	esac
}
outprep() {
	w=$(outwatch "$1")
	case $1 in report|plot) echo 'mkdir -p "$D" && cp -R "$G/p/." "$D/"' ;; *) echo 'mkdir -p "$D"' ;; esac
	echo "mkdir -p \"\$(dirname \"$w\")\" && echo GOOD >\"$w\""
}
# msgcheck FILE PROG: one line from PROG on stderr (the last line: progress lines
# of kp-collect and kp-discover come before it)
msgcheck() {
	[ -s "$1" ] || { echo "no message on stderr"; return; }
	tail -1 "$1" | grep -q "^$2: " || echo "last stderr line is not '$2: ...': $(tail -1 "$1")"
}
G=$good
export G
# What nobody runs: a copy it can reach (the stand-in ncu finds its captures
# beside itself, the programs their references beside themselves).
nobody_skip=
pubmake() {
	pub=$(mktemp -d "$1/kp-nobody.XXXXXX") || return 1
	mkdir -p "$pub/tests/fixtures/h200" &&
	cp -R "$top/bin" "$top/references" "$pub/" && cp -R "$top/tests/bin" "$pub/tests/" &&
	cp -R "$FIX/h200/device" "$FIX/h200/hgemm_v0" "$pub/tests/fixtures/h200/" &&
	chmod -R a+rX "$pub" && chmod 755 "$pub" || return 1
	command -v setpriv >/dev/null || return 0	# the cases say so themselves
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
	    "'$pub/bin/kp-extract' --version && test -r '$pub/references/rules/bottleneck_rules.yaml' &&
	    test -r '$G/raw.csv' && test -x '$work'" >/dev/null 2>&1 && return 0
	rm -rf "$pub"
	return 1
}
if ! pubmake "$work"; then
	for base in /tmp /var/tmp /dev/shm; do
		pubmake "$base" && break
	done
	[ -d "${pub:-}" ] || nobody_skip="no folder that both root's test files and nobody can reach ($work is not reachable for uid 65534)"
fi
[ -z "$nobody_skip" ] || echo "bad: skipping the nobody cases: $nobody_skip"
for prog in extract hotspots decide compare report plot discover gentarget collect; do
	cmd=$(outcmd $prog)
	prep=$(outprep $prog)
	watch=$(outwatch $prog)
	for c in unwritable nobody fulldisk devfull closed epipe sigpipe; do
		name=$prog/output/$c
		printf '%s\n' "$name" | grep -qE -- "$pat" || continue
		case $prog/$c in report/unwritable|plot/unwritable) continue ;; esac	# the output is the input folder
		[ $c = nobody ] && [ -n "$nobody_skip" ] && continue
		d=$(mktemp -d "$work/run.XXXXXX")
		chmod 755 "$d"
		why=$(cd "$d" && export D="$d/o" && case $c in
		unwritable)
			: >f && D=$d/f/o sh -c "$cmd" >stdout 2>stderr </dev/null
			s=$?; [ $s = 4 ] || { echo "exit status $s, expected 4: $(tail -1 stderr)"; exit; }
			msgcheck stderr kp-$prog; [ ! -e f/o ] || echo "f/o made" ;;
		nobody)
			command -v setpriv >/dev/null || { echo "setpriv not found"; exit; }
			sh -c "$prep" && chmod -R go-w "$D" &&
			setpriv --reuid=65534 --regid=65534 --clear-groups env PATH="$pub/bin:$pub/tests/bin:$PATH" \
			    FIX="$pub/tests/fixtures" sh -c "$cmd" >stdout 2>stderr </dev/null
			s=$?; [ $s = 4 ] || { echo "exit status $s, expected 4: $(tail -1 stderr)"; exit; }
			msgcheck stderr kp-$prog
			[ "$(eval cat "\"$watch\"")" = GOOD ] || echo "the earlier output was changed" ;;
		fulldisk)
			command -v unshare >/dev/null || { echo "unshare not found"; exit; }
			mkdir m && unshare -m sh -c "mount -t tmpfs -o size=4m tmpfs m || exit 98
			    D=\$PWD/m/o; $prep || exit 97
			    dd if=/dev/zero of=m/fill bs=1k 2>/dev/null
			    $cmd >stdout 2>stderr </dev/null; echo \$? >status
			    cat \"$watch\" >watched 2>&1; find m -name '*.tmp*' -o -name '.*.??????' >left" 
			s=$(cat status 2>/dev/null); [ "$s" = 4 ] || { echo "exit status $s, expected 4: $(tail -1 stderr 2>/dev/null)"; exit; }
			msgcheck stderr kp-$prog
			[ "$(cat watched)" = GOOD ] || echo "the earlier output was changed: $(head -c 100 watched)"
			[ ! -s left ] || echo "temporary files left: $(cat left)" ;;
		devfull|closed|epipe|sigpipe)
			sh -c "$prep" || exit
			case $c in
			devfull) sh -c "$cmd" >/dev/full 2>stderr </dev/null; s=$? ;;
			closed) sh -c "$cmd" >&- 2>stderr </dev/null; s=$? ;;
			epipe) (trap '' PIPE; { sleep 0.3; sh -c "$cmd" 2>stderr </dev/null; echo $? >status; } | true); s=$(cat status) ;;
			sigpipe) ({ sleep 0.3; sh -c "$cmd" 2>stderr </dev/null; echo $? >status; } | true); s=$(cat status) ;;
			esac
			[ "$s" != 0 ] || { echo "exit status 0 after a failed write to stdout"; exit; }
			[ $c = sigpipe ] && [ "$s" -gt 128 ] && exit
			msgcheck stderr kp-$prog ;;
		esac)
		result "$name" "$why"
		rm -rf "$d"
	done
done
[ -z "${pub:-}" ] || rm -rf "$pub"
echo "bad: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
