#!/usr/bin/env python3
"""Turns a package-benchmark JMH export into the markdown table BENCHMARKS.md records.

Each benchmark is reported by its median wall-clock time and malloc count (median per iteration); benchmarks that
have a memcpy of the same bytes in the same run are also given as a ratio against it (throughput ratio = memcpy time
/ our time), and benchmarks named "… (N packets)" per packet (mallocs per packet, packets per second).
Usage: micro_report.py RUN.jmh.json [--update BENCHMARKS.md]   (--update rewrites the <!-- micro:… --> section)
"""
import datetime
import json
import os
import re
import sys


def metric(bench, name):
    m = bench.get("secondaryMetrics", {}).get(name)
    return None if m is None else (m["scorePercentiles"]["50.0"], m["scoreUnit"])


def to_ns(value, unit):
    return value * {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def shown_time(ns):
    if ns is None:
        return "–"
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


def table(path):
    runs = json.load(open(path))
    rows = []
    for bench in runs:
        target, name = bench["benchmark"].split(".", 3)[-2:] if bench["benchmark"].count(".") >= 3 else ("", bench["benchmark"])
        name = name.replace("_", " ")
        time = metric(bench, "Time (wall clock)")
        mallocs = metric(bench, "Malloc (total)")
        rows.append((name, to_ns(*time) if time else None, mallocs[0] if mallocs else None))
    memcpy = next((t for n, t, _ in rows if n.startswith("memcpy")), None)
    lines = ["| benchmark | median time | mallocs | per packet | vs memcpy of the same bytes |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for name, time, mallocs in sorted(rows):
        ratio = ""
        if memcpy and time and "Annex-B" in name:  # the Bitstream rows copy the same bytes memcpy does
            ratio = f"{memcpy / time:.2f}× memcpy throughput"
        per_packet = ""
        packets = re.search(r"\((\d+) packets\)", name)
        if packets and time:
            count = int(packets.group(1))
            allocations = f"{mallocs / count:.2f} mallocs" if mallocs is not None else "–"
            per_packet = f"{allocations}, {count / time * 1e3:.2f} M packets/s"
        shown_mallocs = f"{mallocs:g}" if mallocs is not None else "–"
        lines.append(f"| {name} | {shown_time(time)} | {shown_mallocs} | {per_packet} | {ratio} |")
    return "\n".join(lines)


def update(path, section):
    begin, end = "<!-- micro:begin -->", "<!-- micro:end -->"
    text = open(path).read()
    block = f"{begin}\n{section}\n{end}"
    if begin in text and end in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    open(path, "w").write(text)


def main(arguments):
    rendered = table(arguments[0])
    print(rendered)
    if len(arguments) >= 3 and arguments[1] == "--update":
        stamp = (f"Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `make bench-micro` "
                 f"on {os.cpu_count()} CPUs (medians; mallocs are per iteration).")
        update(arguments[2], stamp + "\n\n" + rendered)


if __name__ == "__main__":
    main(sys.argv[1:])
