#!/usr/bin/env python3
# The peer a user would write instead of kp-extract: the csv module reads an
# ncu raw page, every metric cell becomes a float, and each kernel gets the
# median of each metric over its launches.  Usage: peer_extract.py FILE
import csv
import statistics
import sys


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def main(path):
    vals = {}
    with open(path, newline="") as f:
        r = csv.reader(line for line in f if line.startswith('"'))
        hdr = next(r)
        next(r)                             # the units row
        k = hdr.index("Kernel Name")
        first = hdr.index("CC") + 1 if "CC" in hdr else k + 1
        for row in r:
            d = vals.setdefault(row[k], {})
            for i in range(first, len(row)):
                v = num(row[i])
                if v is not None:
                    d.setdefault(i, []).append(v)
    n = 0
    for d in vals.values():
        for v in d.values():
            statistics.median(v)
            n += 1
    print(len(vals), "kernels,", n, "medians")


if __name__ == "__main__":
    main(sys.argv[1])
