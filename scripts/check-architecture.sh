#!/usr/bin/env bash
# The dependency rules of ARCHITECTURE.md ("Modules"), checked without building anything: the `import` lines of every
# Sources/<Module>/**/*.swift and the target dependencies in Package.swift. `make test` runs it (and its self-test)
# before the Swift tests, so a forbidden import fails CI in a second, naming the file and the import.
#
#   scripts/check-architecture.sh [ROOT]     check the package at ROOT (default: this repository)
#   scripts/check-architecture.sh --self-test   prove the check fails on violations and passes on a clean tree
#
# Each module has an allowlist: what it may import (Swift files) and depend on (Package.swift). Anything else fails,
# including a module with no row here — a new module gets its row (and ARCHITECTURE.md its line) when it is added.
#
# TODO, rows for the modules issue 13 adds next (architecture-next.md §4 "Target layout"):
#   RTP (pure, split from RTPOut)  MediaCore Bitstream      never: Glibc sockets, CUDPShim, CSRTP, clock reads, threads
#   RTPNet (edge)                  RTP SRTP CUDPShim Glibc  never: EncoderSession
#   SRTP                           CSRTP MediaCore          never: the RTP sessions
#   CongestionControl              MediaCore RTP            never: EncoderSession, sockets
#   WebRTC                         RTP SRTP CongestionControl CDTLS (edge: + RTPNet)  never: EncoderSession
#   Composition                    MediaCore MediaIO        never: EncoderSession, RTP*
# and, once RTPOut is split: the pure RTP files may not import Glibc, CUDPShim or CSRTP, nor read a clock
# (clock_gettime, wallClockNow) — checked today for RTPOut/Session (DIR_RULES), to be widened to the whole module; MediaIO's libav calls only under MediaIO/LibAV/ (H264AccessUnitDecoder.swift and
# Probe/VAProbe.swift import CLibAV today).
set -euo pipefail

# module | may import (Swift files and Package.swift dependencies) | why (printed with a violation)
RULES=(
  "MediaCore|Swift Synchronization|MediaCore is the shared vocabulary: the Swift standard library only (no Foundation, no C library)"
  "Bitstream|MediaCore Glibc Musl Darwin|Bitstream is pure bitstream work: MediaCore only (libc's memchr in ByteCursor.swift)"
  "LibAVSupport|CLibAV|LibAVSupport is libav's status codes and their text, shared: CLibAV only"
  "LibAVLog|CLibAV Logging Synchronization|LibAVLog only routes libav's log to swift-log: CLibAV and Logging"
  "EncoderSession|MediaCore Bitstream CLibAV LibAVSupport LibAVLog Glibc Darwin Synchronization|EncoderSession must not reach RTP, MediaIO or the CLI"
  "MediaIO|MediaCore Bitstream CLibAV LibAVSupport LibAVLog Glibc|MediaIO must not import EncoderSession (PixelBuffer and FrameSource are in MediaCore)"
  "RTPOut|MediaCore Bitstream CUDPShim CSRTP Glibc Synchronization|RTPOut must not reach the encoder, MediaIO or libav"
  "NetworkEmulator|MediaCore RTPOut Glibc|NetworkEmulator must not reach the encoder, MediaIO or libav"
  "BitrateAdaptation|MediaCore Bitstream EncoderSession MediaIO Glibc FoundationEssentials Synchronization|BitrateAdaptation drives the encoder offline: no sockets, no libav of its own"
  "StreamToPeer|EncoderSession MediaIO RTPOut Glibc Synchronization|the README's example (Examples/StreamToPeer) uses the public libraries as an app would: no C shims, no libav"
  "rtenc|MediaCore Bitstream EncoderSession LibAVLog RTPOut MediaIO BitrateAdaptation NetworkEmulator ArgumentParser Logging FoundationEssentials Dispatch Glibc Synchronization|the CLI is wiring only: no libav calls of its own (no CLibAV), no C shims"
)

# Narrower rules inside a module: module | import | the only files (under Sources/<module>/, space-separated globs)
# that may import it.
FILE_RULES=(
  "Bitstream|Glibc|ByteCursor.swift"
  "Bitstream|Musl|ByteCursor.swift"
  "Bitstream|Darwin|ByteCursor.swift"
  "EncoderSession|CLibAV|LibAV*.swift X264Backend.swift VAAPIBackend.swift VAAPISurfaces.swift"
)

# Sans-IO directories inside an edge module (the code issue 13 moves into the pure RTP module): module | directory
# under Sources/<module>/ | what its files may import | why. They may not read a clock either (CLOCK_READS).
DIR_RULES=(
  "RTPOut|Session|MediaCore Bitstream Synchronization|RTPOut/Session is the sans-IO RTP core: time is handed in; no sockets, C shims, threads or clock reads"
)
CLOCK_READS='wallClockNow\(|clock_gettime|gettimeofday|ContinuousClock|SuspendingClock|MonotonicMediaClock|Date\(\)'

# C targets: no Swift files, dependencies checked like the others.
C_TARGETS="CLibAV CUDPShim CSRTP"

# True when $1 matches one of the space-separated globs in $2.
matches_any() {
  local glob globs
  read -r -a globs <<<"$2"  # split on spaces without expanding the globs against the current directory
  for glob in "${globs[@]}"; do
    # shellcheck disable=SC2053  # $glob is a glob on purpose
    if [[ "$1" == $glob ]]; then return 0; fi
  done
  return 1
}

# `file:line:Module` for every import statement in the Swift files under $1.
imports_of() {
  find "$1" -name '*.swift' -print0 | sort -z | xargs -0 -r awk '
    match($0, /^[ \t]*(@[A-Za-z_]+[ \t]+)*((public|package|internal|fileprivate|private)[ \t]+)?import[ \t]+((typealias|struct|class|enum|protocol|let|var|func)[ \t]+)?[A-Za-z_][A-Za-z0-9_]*/) {
      statement = substr($0, RSTART, RLENGTH)
      n = split(statement, words, /[ \t]+/)
      print FILENAME ":" FNR ":" words[n]
    }'
}

check() {
  local root=$1 failures=0 row module allowed reason file line imported

  # --- Swift import lines -------------------------------------------------------------------------------------------
  local known=" "
  for row in "${RULES[@]}"; do known+="${row%%|*} "; done
  for dir in "$root"/Sources/*/; do
    module=$(basename "$dir")
    if [[ " $C_TARGETS " == *" $module "* ]]; then continue; fi
    if [[ "$known" != *" $module "* ]]; then
      echo "check-architecture: Sources/$module has no row in scripts/check-architecture.sh (add what it may import)" >&2
      failures=$((failures + 1))
    fi
  done
  for row in "${RULES[@]}"; do
    IFS='|' read -r module allowed reason <<<"$row"
    [[ -d "$root/Sources/$module" ]] || continue
    # `[attributes] [access] import [kind] Module[.Sub]`; comments and `#if canImport(…)` do not match.
    while IFS=: read -r file line imported; do
      [[ -n "$file" ]] || continue
      if [[ " $allowed " != *" $imported "* ]]; then
        echo "${file#"$root"/}:$line: forbidden import of $imported in $module — $reason" >&2
        failures=$((failures + 1))
        continue
      fi
      local rule rmodule rimport rfiles
      for rule in "${FILE_RULES[@]}"; do
        IFS='|' read -r rmodule rimport rfiles <<<"$rule"
        if [[ "$rmodule" == "$module" && "$rimport" == "$imported" ]] && ! matches_any "$(basename "$file")" "$rfiles"; then
          echo "${file#"$root"/}:$line: forbidden import of $imported in $module outside $rfiles — $reason" >&2
          failures=$((failures + 1))
        fi
      done
    done < <(imports_of "$root/Sources/$module")
  done

  # --- Sans-IO directories ------------------------------------------------------------------------------------------
  local dir_rule dir_module dir dir_allowed dir_reason
  for dir_rule in "${DIR_RULES[@]}"; do
    IFS='|' read -r dir_module dir dir_allowed dir_reason <<<"$dir_rule"
    [[ -d "$root/Sources/$dir_module/$dir" ]] || continue
    while IFS=: read -r file line imported; do
      [[ -n "$file" ]] || continue
      if [[ " $dir_allowed " != *" $imported "* ]]; then
        echo "${file#"$root"/}:$line: forbidden import of $imported in $dir_module/$dir — $dir_reason" >&2
        failures=$((failures + 1))
      fi
    done < <(imports_of "$root/Sources/$dir_module/$dir")
    while IFS=: read -r file line _; do
      [[ -n "$file" ]] || continue
      echo "${file#"$root"/}:$line: clock read in $dir_module/$dir — $dir_reason" >&2
      failures=$((failures + 1))
    done < <(grep -rnE --include='*.swift' "$CLOCK_READS" "$root/Sources/$dir_module/$dir" || true)
  done

  # --- Package.swift target dependencies ----------------------------------------------------------------------------
  # Each `.target(` / `.executableTarget(` call (not test targets, nor helpers under Tests/) flattened to one line: its name and every quoted
  # name inside `dependencies: [...]` (a `.product(name: "X", package: "p")` counts as X).
  while IFS='|' read -r module deps; do
    [[ -n "$module" ]] || continue
    if [[ " $C_TARGETS " == *" $module "* ]]; then
      allowed=""
      reason="a C shim target depends on no Swift module"
    else
      allowed="" reason=""
      for row in "${RULES[@]}"; do
        if [[ "${row%%|*}" == "$module" ]]; then IFS='|' read -r _ allowed reason <<<"$row"; fi
      done
      if [[ -z "$reason" ]]; then
        echo "Package.swift: target $module has no row in scripts/check-architecture.sh (add what it may import)" >&2
        failures=$((failures + 1))
        continue
      fi
    fi
    for imported in $deps; do
      if [[ " $allowed " != *" $imported "* ]]; then
        echo "Package.swift: target $module depends on $imported — $reason" >&2
        failures=$((failures + 1))
      fi
    done
  done < <(awk '
    BEGIN { inside = 0 }
    {
      line = $0
      sub(/\/\/.*$/, "", line)
      if (!inside && line ~ /\.(target|executableTarget)\(/) { inside = 1; depth = 0; text = "" }
      if (inside) {
        text = text " " line
        depth += gsub(/\(/, "(", line) - gsub(/\)/, ")", line)
        if (depth <= 0) {
          inside = 0
          if (text ~ /path:[ \t]*"Tests\//) next  # test helpers (TestSupport) are not part of the rules
          name = text
          sub(/^[^"]*name:[ \t]*"/, "", name); sub(/".*$/, "", name)
          deps = ""
          if (match(text, /dependencies:[ \t]*\[[^]]*\]/)) {
            list = substr(text, RSTART, RLENGTH)
            gsub(/package:[ \t]*"[^"]*"/, "", list)
            while (match(list, /"[^"]*"/)) {
              deps = deps " " substr(list, RSTART + 1, RLENGTH - 2)
              list = substr(list, RSTART + RLENGTH)
            }
          }
          print name "|" deps
        }
      }
    }' "$root/Package.swift")

  if ((failures > 0)); then
    echo "check-architecture: $failures violation(s) of the dependency rules (ARCHITECTURE.md, \"Modules\")" >&2
    return 1
  fi
  echo "check-architecture: the dependency rules hold ($(find "$root/Sources" -name '*.swift' | wc -l) Swift files, Package.swift)"
}

# A clean miniature package must pass; each seeded violation must fail with its file and import named.
self_test() {
  local tmp status=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/Sources/MediaCore" "$tmp/Sources/Bitstream" "$tmp/Sources/MediaIO/Y4M" "$tmp/Sources/rtenc" \
    "$tmp/Sources/EncoderSession" "$tmp/Sources/CLibAV/include"
  cat >"$tmp/Package.swift" <<'EOF'
// .target(name: "Ignored", dependencies: ["CLibAV"]) in a comment
let package = Package(name: "mini", targets: [
    .target(name: "MediaCore"),
    .target(name: "Bitstream", dependencies: ["MediaCore"]),
    .target(name: "CLibAV", linkerSettings: [.linkedLibrary("avcodec")]),
    .target(
        name: "EncoderSession",
        dependencies: ["MediaCore", "Bitstream", "CLibAV"]
    ),
    .target(name: "MediaIO", dependencies: ["MediaCore", "Bitstream", "CLibAV"]),
    .executableTarget(
        name: "rtenc",
        dependencies: [
            "MediaCore", "EncoderSession", "MediaIO",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]
    ),
    .target(name: "TestSupport", path: "Tests/Support", dependencies: ["CLibAV"]),
    .testTarget(name: "MediaIOTests", dependencies: ["MediaIO", "EncoderSession", "CLibAV"]),
])
EOF
  printf 'import Synchronization\n// import Foundation (a comment)\npublic struct T {}\n' >"$tmp/Sources/MediaCore/T.swift"
  printf '#if canImport(Glibc)\nimport Glibc\n#endif\n@_exported import MediaCore\n' >"$tmp/Sources/Bitstream/ByteCursor.swift"
  printf 'import CLibAV\nimport MediaCore\n' >"$tmp/Sources/EncoderSession/LibAV.swift"
  printf 'import Bitstream\nimport MediaCore\n' >"$tmp/Sources/MediaIO/Y4M/Reader.swift"
  printf 'import ArgumentParser\nimport EncoderSession\n' >"$tmp/Sources/rtenc/main.swift"
  if ! check "$tmp" >/dev/null; then
    echo "check-architecture --self-test: a clean tree was refused" >&2
    check "$tmp" || true
    return 1
  fi

  # Each case: a file to write, its content, and the message the check must print.
  local cases=(
    "Sources/MediaCore/Bad.swift|import Foundation|Sources/MediaCore/Bad.swift:1: forbidden import of Foundation in MediaCore"
    "Sources/MediaCore/Bad.swift|#if canImport(Glibc)\n  import Glibc\n#endif|Sources/MediaCore/Bad.swift:2: forbidden import of Glibc in MediaCore"
    "Sources/Bitstream/Bad.swift|import Glibc|Sources/Bitstream/Bad.swift:1: forbidden import of Glibc in Bitstream outside ByteCursor.swift"
    "Sources/Bitstream/Bad.swift|public import struct EncoderSession.PixelBuffer|Sources/Bitstream/Bad.swift:1: forbidden import of EncoderSession in Bitstream"
    "Sources/MediaIO/Y4M/Bad.swift|@preconcurrency import EncoderSession|Sources/MediaIO/Y4M/Bad.swift:1: forbidden import of EncoderSession in MediaIO"
    "Sources/EncoderSession/Engine.swift|import CLibAV|Sources/EncoderSession/Engine.swift:1: forbidden import of CLibAV in EncoderSession outside LibAV*.swift"
    "Sources/rtenc/RTEnc.swift|import ArgumentParser\nimport CLibAV|Sources/rtenc/RTEnc.swift:2: forbidden import of CLibAV in rtenc"
    "Sources/Composition/Clip.swift|import MediaCore|Sources/Composition has no row"
    "Sources/RTPOut/Session/Bad.swift|import CUDPShim|Sources/RTPOut/Session/Bad.swift:1: forbidden import of CUDPShim in RTPOut/Session"
    "Sources/RTPOut/Session/Bad.swift|import MediaCore\nlet now = wallClockNow()|Sources/RTPOut/Session/Bad.swift:2: clock read in RTPOut/Session"
    "Package.swift|.executableTarget(name: \"rtenc\", dependencies: [\"EncoderSession\", \"CLibAV\"])|Package.swift: target rtenc depends on CLibAV"
    "Package.swift|.target(\n    name: \"MediaIO\",\n    dependencies: [\"MediaCore\", \"EncoderSession\"]\n)|Package.swift: target MediaIO depends on EncoderSession"
    "Package.swift|.target(name: \"MediaCore\", dependencies: [.product(name: \"Logging\", package: \"swift-log\")])|Package.swift: target MediaCore depends on Logging"
  )
  local entry path content expected output
  for entry in "${cases[@]}"; do
    IFS='|' read -r path content expected <<<"$entry"
    local backup=""
    if [[ -f "$tmp/$path" ]]; then backup=$(cat "$tmp/$path"); fi
    mkdir -p "$(dirname "$tmp/$path")"
    if [[ "$path" == Package.swift ]]; then
      printf '%s\n' "$backup" >"$tmp/$path.new"
      printf "${content//%/%%}\n" >>"$tmp/$path.new"
      mv "$tmp/$path.new" "$tmp/$path"
    else
      printf "${content//%/%%}\n" >"$tmp/$path"
    fi
    if output=$(check "$tmp" 2>&1); then
      echo "check-architecture --self-test: a violation passed ($path: $content)" >&2
      status=1
    elif [[ "$output" != *"$expected"* ]]; then
      echo "check-architecture --self-test: expected \"$expected\", got:" >&2
      echo "$output" >&2
      status=1
    fi
    # Undo the case.
    if [[ -n "$backup" ]]; then printf '%s\n' "$backup" >"$tmp/$path"; else rm -f "$tmp/$path"; fi
    rmdir "$tmp/Sources/Composition" "$tmp/Sources/RTPOut/Session" "$tmp/Sources/RTPOut" 2>/dev/null || true
  done
  if ((status == 0)); then
    echo "check-architecture --self-test: clean tree passes, ${#cases[@]} seeded violations fail with file and import named"
  fi
  return $status
}

case "${1:-}" in
  --self-test) self_test ;;
  -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) check "${1:-$(cd "$(dirname "$0")/.." && pwd)}" ;;
esac
