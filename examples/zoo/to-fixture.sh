#!/bin/sh
# to-fixture.sh PROF DEST: turn the profile folders a run-zoo.sh run left in
# PROF (PROF/NAME/details/NN_*_raw.csv) into replay fixtures DEST/NAME/ under
# the names tests/bin/ncu replays: basic_raw.csv, the follow-up pass
# (speed_of_light_raw.csv, memory_raw.csv, compute_raw.csv, occupancy_raw.csv,
# roofline_raw.csv) and the source page.  A kernel without lineinfo (the
# manifest's source_mapping is sass-only) gets its SASS page as
# source_sass.csv and, as source_cuda_sass.csv, ncu's one-line warning,
# rebuilt from the reason the manifest kept.
set -eu
prof=${1:?usage: to-fixture.sh PROF DEST}
dest=${2:?usage: to-fixture.sh PROF DEST}
for d in "$prof"/*/details; do
	name=$(basename "$(dirname "$d")")
	o=$dest/$name
	mkdir -p "$o"
	for pair in 01_basic_raw:basic_raw 02_speed_of_light_raw:speed_of_light_raw \
	    03_memory_raw:memory_raw 04_compute_raw:compute_raw \
	    05_occupancy_launch_raw:occupancy_raw 06_roofline_raw:roofline_raw; do
		[ -f "$d/${pair%%:*}.csv" ] && cp "$d/${pair%%:*}.csv" "$o/${pair#*:}.csv"
	done
	[ -f "$d/07_source_raw.csv" ] || continue
	m=$(dirname "$d")/run_manifest.yaml
	if grep -q '^  mapping: sass-only' "$m"; then
		cp "$d/07_source_raw.csv" "$o/source_sass.csv"
		sed -n 's/^  reason: "ncu: \(No lineinfo.*\)"$/==WARNING== \1/p' "$m" |
		    sed 's/\\"/"/g' > "$o/source_cuda_sass.csv"
	else
		cp "$d/07_source_raw.csv" "$o/source_cuda_sass.csv"
	fi
done
