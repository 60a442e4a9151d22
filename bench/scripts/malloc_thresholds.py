#!/usr/bin/env python3
"""Keeps only the malloc count in package-benchmark's p90 threshold files (bench/Thresholds/*.p90.json).

`thresholds check` compares every metric a file holds, strictly, and fails on a change in either direction; wall
clock and throughput on these shared 2-core machines would fail it at random. Malloc counts are deterministic.
Usage: malloc_thresholds.py DIR
"""
import glob
import json
import os
import sys

for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.p90.json"))):
    with open(path) as file:
        thresholds = json.load(file)
    kept = {key: value for key, value in thresholds.items() if key == "mallocCountTotal"}
    with open(path, "w") as file:
        json.dump(kept, file, indent=2, sort_keys=True)
        file.write("\n")
    print(f"{os.path.basename(path)}: mallocCountTotal {kept.get('mallocCountTotal', '–')}")
