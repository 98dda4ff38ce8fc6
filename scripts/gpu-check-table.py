#!/usr/bin/env python3
"""The comparison table of scripts/gpu-check.sh: fabricbench's rows against the bare reference
loops (perf/gpu_reference), and the wrong elements of every checked row. A run that failed leaves
its rows out: the table says "not measured" there and the check fails, it never stops early.

    gpu-check-table.py RESULTS_DIR TOLERANCE
"""
import csv
import glob
import os
import sys

results, tolerance = sys.argv[1], float(sys.argv[2])


def read_reference():
    """The reference loop's "name value" lines; other lines (errors) are skipped."""
    values = {}
    path = os.path.join(results, "reference.log")
    if os.path.exists(path):
        for line in open(path):
            parts = line.split()
            if len(parts) == 2:
                try:
                    values[parts[0]] = float(parts[1])
                except ValueError:
                    pass
    return values


def rows_of(name):
    path = os.path.join(results, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def measured(name, op, size):
    for row in rows_of(name):
        if row["op"] == op and int(row["bytes"]) == size and row["in_place"] == "false":
            return float(row["algbw_gbps"])
    return None


reference = read_reference()
GiB, MiB = 1 << 30, 1 << 20
checks = [
    ("host->device (copy engine)", measured("cuda.csv", "h2d_ce", GiB), reference.get("h2d_gbps")),
    ("device->host (copy engine)", measured("cuda.csv", "d2h_ce", GiB), reference.get("d2h_gbps")),
    ("device-local (copy engine)", measured("cuda.csv", "local_ce", GiB), reference.get("local_gbps")),
    ("nccl all_reduce 512 MiB", measured("nccl.csv", "all_reduce", 512 * MiB), reference.get("all_reduce_algbw_gbps")),
    ("nccl all_reduce 512 MiB, -G 5", measured("nccl-graph.csv", "all_reduce", 512 * MiB),
     reference.get("all_reduce_algbw_gbps")),
]


def figure(value):
    return f"{value:.2f}" if value is not None else "not measured"


failed = False
print(f"{'check':34} {'fabricbench GB/s':>17} {'reference GB/s':>15} {'ratio':>7}")
for name, ours, theirs in checks:
    if ours is None or not theirs:
        failed = True
        print(f"{name:34} {figure(ours):>17} {figure(theirs):>15} {'-':>7}  NOT COMPARED")
        continue
    ratio = ours / theirs
    ok = abs(ratio - 1) <= tolerance
    failed |= not ok
    print(f"{name:34} {ours:17.2f} {theirs:15.2f} {ratio:7.3f}{'' if ok else f'  OUTSIDE {tolerance:.0%}'}")
for name in ("h2d_sm", "d2h_sm", "local_sm"):
    print(f"{name + ' (SM kernel)':34} {figure(measured('cuda.csv', name, GiB)):>17}")
rows = [row for path in sorted(glob.glob(os.path.join(results, "*.csv"))) for row in csv.DictReader(open(path))]
wrong = sum(int(row["wrong"] or 0) for row in rows)
checked = sum(1 for row in rows if row["wrong"] != "")
print(f"wrong elements: {wrong} in {checked} checked rows ({len(rows)} rows)")
sys.exit(1 if failed or wrong else 0)
