#!/usr/bin/env bash
# One step of `make bench`, quietly: bench-step.sh NAME [--writes WHAT] [--summary REGEX] -- COMMAND...
#
# Everything COMMAND prints — swift build's progress, the benchmark plugin's tables, ffmpeg's and x264's banners and
# info lines, the scripts' progress and Markdown sections — goes to $BENCH_LOG_DIR/NAME.log (default
# .build/bench-logs). The terminal gets the log's lines that match REGEX (the step's own summary figures) and one
# line when the step ends: how long it took, what it wrote and where its log is. A failing step prints the log's
# last 40 lines and exits with COMMAND's status, so `make bench` stops there as before.
set -uo pipefail

usage() { echo "usage: bench-step.sh NAME [--writes WHAT] [--summary REGEX] -- COMMAND..." >&2; exit 2; }

[[ $# -ge 1 ]] || usage
name=$1
shift
writes=""
summary=""
while [[ $# -gt 0 && $1 != -- ]]; do
  case $1 in
    --writes) [[ $# -ge 2 ]] || usage; writes=$2; shift 2 ;;
    --summary) [[ $# -ge 2 ]] || usage; summary=$2; shift 2 ;;
    *) echo "bench-step: unknown option $1" >&2; usage ;;
  esac
done
[[ ${1:-} == -- && $# -ge 2 ]] || usage
shift

directory=${BENCH_LOG_DIR:-.build/bench-logs}
mkdir -p "$directory" || exit 1
log=$directory/$name.log
started=$SECONDS
"$@" >"$log" 2>&1 </dev/null
status=$?
elapsed=$((SECONDS - started))
if ((status != 0)); then
  echo "bench $name: failed (exit $status) after $elapsed s; the last 40 lines of $log:" >&2
  tail -n 40 "$log" >&2
  exit "$status"
fi
if [[ -n $summary ]]; then
  # Markdown emphasis is for BENCHMARKS.md, not the terminal.
  grep -E -- "$summary" "$log" | sed -e 's/\*\*//g' -e 's/^/  /'
fi
echo "bench $name: done in $elapsed s${writes:+; wrote $writes}; log $log"
