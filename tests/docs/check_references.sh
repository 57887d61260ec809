#!/bin/sh
# Checks the reference documentation under references/ against captured ncu facts.
#
# Run from the repository root:   sh tests/docs/check_references.sh
#
# (a) Every metric-like token (regex [a-z0-9]+__[a-zA-Z0-9_.]+) in references/**/*.md and *.yaml (the rules too)
#     must be a known metric: the token itself or its base name (the part before the
#     first '.') must be listed in tests/fixtures/device/metric_names.txt.
#     Names that ncu lists with a PM-sampling group prefix (TPC.TriageCompute.<name>)
#     are also accepted without the prefix.
#     Exempt: lines containing the literal text "(other arch)", and template tokens
#     containing '<' (e.g. smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio).
# (b) gpu_specs.yaml's H200 entry must agree with tests/fixtures/device/devprops.txt
#     (cudaGetDeviceProperties on the captured H200).
# (c) gpu_specs.yaml basic schema: header line, and exactly one `sources` entry per
#     value key (every key except name, match, architecture, chip).
#
# Prints "FAIL: ..." lines for problems and "N passed, M failed" as the last line.
# Exit status: 0 if nothing failed, 1 otherwise.

NAMES=tests/fixtures/device/metric_names.txt
DEVPROPS=tests/fixtures/device/devprops.txt
SPECS=references/nvidia/architectures/gpu_specs.yaml

pass=0
fail=0
tmp=${TMPDIR:-/tmp}/check_references.$$
trap 'rm -f "$tmp".*' EXIT INT TERM

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for f in "$NAMES" "$DEVPROPS" "$SPECS"; do
    if [ -f "$f" ]; then ok; else bad "missing file $f (run from the repository root)"; fi
done
if [ "$fail" -gt 0 ]; then
    echo "$pass passed, $fail failed"
    exit 1
fi

# ---------------------------------------------------------------- (a) metric names
find references -type f \( -name '*.md' -o -name '*.yaml' \) | sort > "$tmp.files"
if [ ! -s "$tmp.files" ]; then
    bad "no markdown files under references/"
else
    # One awk pass: load the name list, then scan every markdown line.
    # Output: "OK <file> <token>" or "BAD <file>:<line> <token>", one per unique
    # (file, token) pair.
    # shellcheck disable=SC2046
    awk '
        FNR == NR {
            known[$0] = 1
            # PM-sampling metrics are listed with a group prefix, e.g.
            # TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime: also accept
            # the part after the prefix, which is what the token regex extracts.
            if ($0 ~ /^[A-Z][A-Za-z0-9_]*\.[A-Za-z0-9_]+\.[a-z0-9]+__/) {
                short = $0
                sub(/^[A-Z][A-Za-z0-9_]*\.[A-Za-z0-9_]+\./, "", short)
                known[short] = 1
            }
            next
        }
        FNR == 1 { delete seen }
        index($0, "(other arch)") > 0 { next }
        {
            line = $0
            while (match(line, /[a-z0-9]+__[a-zA-Z0-9_.<>]+/)) {
                tok = substr(line, RSTART, RLENGTH)
                line = substr(line, RSTART + RLENGTH)
                if (index(tok, "<") > 0 || index(tok, ">") > 0) continue
                # A token ending in "_" is a prefix (the rules file,
                # evidence_sections): some known name must start with it.
                prefix = (tok ~ /_$/)
                sub(/[._]+$/, "", tok)
                if (prefix) {
                    if (tok in seen) continue
                    seen[tok] = 1
                    hit = 0
                    for (k in known) if (index(k, tok "_") == 1) { hit = 1; break }
                    print (hit ? "OK " FILENAME " " tok : "BAD " FILENAME ":" FNR " " tok)
                    continue
                }
                if (tok in seen) continue
                seen[tok] = 1
                base = tok
                sub(/\..*$/, "", base)
                if ((tok in known) || (base in known))
                    print "OK " FILENAME " " tok
                else
                    print "BAD " FILENAME ":" FNR " " tok
            }
        }
    ' "$NAMES" $(cat "$tmp.files") > "$tmp.tokens"

    n_ok=$(grep -c '^OK ' "$tmp.tokens")
    pass=$((pass + n_ok))
    grep '^BAD ' "$tmp.tokens" > "$tmp.bad"
    while read -r _ where tok; do
        bad "unknown metric '$tok' at $where (not in $NAMES; mark the line '(other arch)' if intended)"
    done < "$tmp.bad"
    if [ "$n_ok" -eq 0 ]; then
        bad "no metric names found under references/ (extraction broken?)"
    fi
fi

# ---------------------------------------------------------------- (b) H200 vs devprops
# Value of key $1 in devprops.txt ("key: value").
prop() { awk -v k="$1" -F': *' '$1 == k { print $2; exit }' "$DEVPROPS"; }

# Value of key $1 inside the gpus entry whose name is "NVIDIA H200".
spec() {
    awk -v k="$1" '
        /^  - name:/ { inside = ($0 ~ /name:[ ]*"?NVIDIA H200"?[ ]*(#.*)?$/) ; next }
        inside && $1 == k ":" {
            v = $2
            gsub(/"/, "", v)
            print v
            exit
        }
    ' "$SPECS"
}

# Numeric equality (handles 1.98e9 vs 1980000000).
numeq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !((a + 0) == (b + 0) && a != "" && b != "") }'; }

check_pair() { # yaml_key devprops_key [scale]
    y=$(spec "$1")
    d=$(prop "$2")
    scale=${3:-1}
    if [ -z "$y" ]; then
        bad "gpu_specs.yaml H200 entry has no $1"
        return
    fi
    if [ -z "$d" ]; then
        bad "devprops.txt has no $2"
        return
    fi
    d=$(awk -v v="$d" -v s="$scale" 'BEGIN { printf "%.0f", v * s }')
    if numeq "$y" "$d"; then ok; else bad "H200 $1 = $y but devprops $2 gives $d"; fi
}

check_pair sm_count sm_count
check_pair registers_per_sm regs_per_sm
check_pair max_registers_per_block regs_per_block
check_pair shared_memory_per_sm_bytes smem_per_sm
check_pair max_shared_memory_per_block_bytes smem_per_block_optin
check_pair max_threads_per_sm max_threads_per_sm
check_pair max_blocks_per_sm max_blocks_per_sm
check_pair l2_cache_bytes l2_bytes
check_pair boost_clock_hz sm_clock_khz 1000

cc=$(spec compute_capability)
if [ "$cc" = "$(prop cc)" ]; then ok; else bad "H200 compute_capability '$cc' != devprops cc '$(prop cc)'"; fi

# max_warps_per_sm must equal max_threads_per_sm / warp_size
w=$(spec max_warps_per_sm)
t=$(prop max_threads_per_sm)
ws=$(prop warp_size)
if [ -n "$w" ] && [ -n "$t" ] && [ -n "$ws" ] && [ "$w" -eq $((t / ws)) ]; then ok; else
    bad "H200 max_warps_per_sm '$w' != max_threads_per_sm/warp_size ($t/$ws)"
fi

# Memory bandwidth: 2 (double data rate) x mem clock x bus width / 8, within 1 %.
bw=$(spec memory_bandwidth_bytes_per_s)
mk=$(prop mem_clock_khz)
bus=$(prop mem_bus_width_bits)
if awk -v bw="$bw" -v mk="$mk" -v bus="$bus" 'BEGIN {
        calc = 2 * mk * 1000 * bus / 8
        d = (bw - calc) / calc; if (d < 0) d = -d
        exit !(bw != "" && d < 0.01) }'; then ok; else
    bad "H200 memory_bandwidth_bytes_per_s '$bw' not within 1% of 2 x $mk kHz x $bus bit / 8"
fi

# ---------------------------------------------------------------- (c) YAML basics
if [ "$(sed -n 1p "$SPECS")" = "schema: kp-gpu-specs/1" ]; then ok; else
    bad "gpu_specs.yaml first line must be 'schema: kp-gpu-specs/1'"
fi

# Every numeric value key of every GPU needs a matching key under its sources.
awk '
    function flush() {
        if (name == "") return
        for (k in val) if (!(k in src)) print "NOSRC " name " " k
        for (k in src) if (!(k in val)) print "EXTRA " name " " k
        delete val; delete src
    }
    /^  - name:/ { flush(); name = $0; sub(/^  - name:[ ]*/, "", name); sub(/[ ]*#.*$/, "", name); insrc = 0; next }
    /^    sources:/ { insrc = 1; next }
    /^      [a-z0-9_]+:/ && insrc { k = $1; sub(/:$/, "", k); src[k] = 1; next }
    /^    [a-z0-9_]+:/ {
        insrc = 0
        k = $1; sub(/:$/, "", k)
        if (k == "match" || k == "architecture" || k == "chip") next
        val[k] = 1
    }
    END { flush() }
' "$SPECS" > "$tmp.yaml"
if [ -s "$tmp.yaml" ]; then
    while read -r kind rest; do
        case $kind in
            NOSRC) bad "gpu_specs.yaml: no sources entry for $rest" ;;
            EXTRA) bad "gpu_specs.yaml: sources entry without a value: $rest" ;;
        esac
    done < "$tmp.yaml"
else
    ok
fi

# (d) The cause-over-symptom order in references/rules/README.md is the
#     rules file's outranks: lists, class by class.
python3 - references/rules/bottleneck_rules.yaml references/rules/README.md > "$tmp.rank" <<'PY'
import re, sys
y = open(sys.argv[1]).read()
rules = {}
for m in re.finditer(r"^  - id: (\w+)\n(.*?)(?=^  - id: |\Z)", y, re.S | re.M):
    o = re.search(r"^    outranks: \[([^\]]*)\]", m.group(2), re.M)
    got = [w.strip() for w in o.group(1).replace("\n", " ").split(",") if w.strip()] if o else []
    if got:
        rules[m.group(1)] = got
doc = {}
for line in open(sys.argv[2]):
    m = re.match(r"^(\w+) +-> (.*)$", line)
    if m:
        doc[m.group(1)] = [w.strip() for w in re.sub(r"\(.*\)", "", m.group(2)).split(",")]
for k in sorted(set(rules) | set(doc)):
    if k == "under_filled_grid" and doc.get(k) == ["every other class"]:
        print("OK"); continue
    if rules.get(k) != doc.get(k):
        print("BAD %s: rules file %s, README %s" % (k, rules.get(k), doc.get(k)))
    else:
        print("OK")
PY
while read -r kind rest; do
    case $kind in
        OK) ok ;;
        *) bad "references/rules/README.md outranks order: $rest" ;;
    esac
done < "$tmp.rank"

# (e) Every threshold the README's class table states as "`metric` OP value"
#     is one of that class's when: or unless: conditions in the rules file
#     (its latency_bound row said < 40 when the rule said < 60).
python3 - references/rules/bottleneck_rules.yaml references/rules/README.md > "$tmp.thr" <<'PY'
import re, sys
y = open(sys.argv[1]).read()
conds = {}
for m in re.finditer(r"^  - id: (\w+)\n(.*?)(?=^  - id: |\Z)", y, re.S | re.M):
    cs = set()
    for part in re.finditer(r"^    (?:when|unless):\n(.*?)(?=^    \w|\Z)", m.group(2), re.S | re.M):
        for c in re.finditer(r'\{metric: ([\w.]+), op: "([<>=!]+)", value: ([\d.]+)\}', part.group(1)):
            cs.add((c.group(1), c.group(2), float(c.group(3))))
    conds[m.group(1)] = cs
n = 0
for no, line in enumerate(open(sys.argv[2]), 1):
    m = re.match(r"^\| `(\w+)` \|[^|]*\| (.*) \|$", line)
    if not m or m.group(1) not in conds:
        continue
    for t in re.finditer(r"`([\w.]+)` (>=|<=|<|>|==) ([\d.]+)", m.group(2)):
        n += 1
        key = (t.group(1), t.group(2), float(t.group(3)))
        if key in conds[m.group(1)]:
            print("OK")
        else:
            print("BAD line %d: %s %s %s %s is no condition of the rule" % ((no, m.group(1)) + t.groups()))
if n == 0:
    print("BAD no thresholds found in the class table")
PY
while read -r kind rest; do
    case $kind in
        OK) ok ;;
        *) bad "references/rules/README.md threshold: $rest" ;;
    esac
done < "$tmp.thr"

n_gpus=$(grep -c '^  - name:' "$SPECS")
if [ "$n_gpus" -ge 1 ]; then ok; else bad "gpu_specs.yaml lists no GPUs"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
