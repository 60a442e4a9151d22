#!/usr/bin/env python3
"""Turns a package-benchmark JMH export into the markdown table BENCHMARKS.md records.

Each benchmark is reported by its median wall-clock time and malloc count; benchmarks that have a memcpy of the same
bytes in the same run are also given as a ratio against it (throughput ratio = memcpy time / our time).
Usage: micro_report.py RUN.jmh.json
"""
import json
import sys


def metric(bench, name):
    m = bench.get("secondaryMetrics", {}).get(name)
    return None if m is None else (m["scorePercentiles"]["50.0"], m["scoreUnit"])


def to_ns(value, unit):
    return value * {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def main(path):
    runs = json.load(open(path))
    rows = []
    for bench in runs:
        name = bench["benchmark"].split(".", 3)[-1].replace("_", " ")
        time = metric(bench, "Time (wall clock)")
        mallocs = metric(bench, "Malloc (total)")
        rows.append((name, to_ns(*time) if time else None, mallocs[0] if mallocs else None))
    memcpy = next((t for n, t, _ in rows if n.startswith("memcpy")), None)
    print("| benchmark | median time | mallocs | vs memcpy of the same bytes |")
    print("| --- | ---: | ---: | ---: |")
    for name, time, mallocs in sorted(rows):
        ratio = ""
        if memcpy and time and not name.startswith("memcpy"):
            ratio = f"{memcpy / time:.2f}× memcpy throughput"
        shown = f"{time / 1000:.2f} µs" if time is not None else "–"
        print(f"| {name} | {shown} | {mallocs if mallocs is not None else '–'} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1])
