#!/usr/bin/env python3
"""longest.py RAW.csv: a regex for the kernel with the largest total
gpu__time_duration.sum in an ncu raw page (used by capture.sh for library
kernels whose names are not known in advance)."""
import csv, re, sys

rows = [l for l in open(sys.argv[1], errors="replace") if l.startswith('"')]
r = csv.reader(rows)
head = next(r)
next(r)
ki, ti = head.index("Kernel Name"), head.index("gpu__time_duration.sum")
tot = {}
for row in r:
    try:
        tot[row[ki]] = tot.get(row[ki], 0) + float(row[ti].replace(",", ""))
    except (ValueError, IndexError):
        pass
name = max(tot, key=tot.get)
base = re.split(r"[(<]", name)[0].split()[-1]
print(re.escape(base))
