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
# TODO, rows for the modules still to come (architecture-next.md §4 "Target layout"):
#   SRTP                           CSRTP MediaCore          never: the RTP sessions (today SRTP lives in RTPOut, the edge)
# and MediaIO's libav calls only under MediaIO/LibAV/ (H264AccessUnitDecoder.swift and Probe/VAProbe.swift import
# CLibAV today).
set -euo pipefail

# module | may import (Swift files and Package.swift dependencies) | why (printed with a violation)
RULES=(
  "MediaCore|Swift Synchronization|MediaCore is the shared vocabulary: the Swift standard library only (no Foundation, no C library)"
  "Bitstream|MediaCore Glibc Musl Darwin|Bitstream is pure bitstream work: MediaCore only (libc's memchr in ByteCursor.swift)"
  "LibAVSupport|CLibAV|LibAVSupport is libav's status codes and their text, shared: CLibAV only"
  "LibAVLog|CLibAV Logging Synchronization|LibAVLog only routes libav's log to swift-log: CLibAV and Logging"
  "EncoderSession|MediaCore Bitstream CLibAV LibAVSupport LibAVLog Glibc Darwin Synchronization|EncoderSession must not reach RTP, MediaIO or the CLI"
  "MediaIO|MediaCore Bitstream CLibAV LibAVSupport LibAVLog Glibc|MediaIO must not import EncoderSession (PixelBuffer and FrameSource are in MediaCore)"
  "RTP|MediaCore Bitstream|RTP is the sans-IO core (payloaders, RTCP, the send and receive sessions): MediaCore and Bitstream only — no sockets, no C shims, no threads, no libc"
  "Threads|Glibc Musl|Threads starts POSIX threads for the edges (RTPOut's I/O loops, Composition's reader opens): libc only, none of rtenc's modules"
  "RTPOut|RTP MediaCore Bitstream CUDPShim CSRTP Threads Glibc Musl Synchronization|RTPOut is RTP's I/O edge (UDP, threads, SRTP): it must not reach the encoder, MediaIO or libav"
  "NetworkEmulator|MediaCore RTPOut Glibc|NetworkEmulator must not reach the encoder, MediaIO or libav"
  "CongestionControl|MediaCore RTP|CongestionControl decides the rate from feedback, handed the time: pure, MediaCore and RTP's feedback vocabulary only (no encoder, no sockets, no clock reads)"
  "DTLS|CDTLS MediaCore|DTLS is the edge over OpenSSL (CDTLS): certificates, the sans-IO DTLSEndpoint, SRTP keying material; no sockets, no RTP, no other C shim, no OpenSSL type in its API"
  "CongestionSimulation|MediaCore Bitstream RTP CongestionControl|CongestionSimulation is the closed loop in simulated time: pure (the RTP sessions, the policies, its own network), no sockets, no encoder, no clock reads"
  "CongestionSimulationEncoder|MediaCore CongestionSimulation EncoderSession MediaIO Synchronization|CongestionSimulationEncoder is the simulator's edge to a real encoder: the test pattern and a CompressionSession on the simulated clock; no sockets, no RTP of its own, no libav calls (EncoderSession makes them)"
  "WebRTC|MediaCore Bitstream RTP|WebRTC is the pure signalling and transport state (STUN, ICE, demultiplexing, SDP offer/answer): no sockets, no C shims (DTLS is an edge of its own), no clock reads"
  "WebRTCHTTP|NIOCore NIOPosix NIOHTTP1 NIOConcurrencyHelpers WebRTC WebRTCTransport|WebRTCHTTP is the WHEP HTTP server edge on swift-nio: it must not reach the encoder, RTP's sessions or libav (the endpoint it calls does), nor AsyncHTTPClient/NIOSSL (the WHIP client's, in WHIPClient: the fuzz package and the ASan build link WebRTCHTTP and must not compile BoringSSL)"
  "WHIPClient|NIOCore NIOHTTP1 NIOSSL AsyncHTTPClient|WHIPClient is the WHIP signalling client on AsyncHTTPClient (HTTPS through swift-nio-ssl): HTTP only, no WebRTC state (the CLI hands it the offer and the publisher the answer)"
  "WebRTCTransport|MediaCore RTPOut WebRTC DTLS CongestionControl Glibc Synchronization|WebRTCTransport is the WebRTC transport edge (one UDP socket, an I/O thread, ICE-lite or controlling ICE + DTLS + SRTP per peer): no encoder, no libav, no HTTP (the CLI adapts it to WHEP), no C shim of its own"
  "StreamControl|MediaCore CongestionControl EncoderSession RTPOut Synchronization|StreamControl is the glue that applies a rate decision to the encoder and the sender: no libav, no C shims, no MediaIO"
  "Timeline|MediaCore|Timeline is the pure timeline format and planner: MediaCore only (no libav, no libc, no Foundation), so it fuzzes with the sanitizers and plans without a decoder"
  "Composition|MediaCore MediaIO Timeline CCompositionKernels Threads Bitstream Glibc Synchronization|Composition renders timelines over MediaIO's readers: never the encoder (EncoderSession) or RTP, which the CLI wires"
  "BitrateAdaptation|MediaCore Bitstream EncoderSession MediaIO Glibc FoundationEssentials Synchronization|BitrateAdaptation drives the encoder offline: no sockets, no libav of its own"
  "ServeWHEP|Bitstream EncoderSession MediaIO RTPOut WebRTC WebRTCHTTP WebRTCTransport Glibc Synchronization|the README's WHEP example (Examples/ServeWHEP) uses the public libraries as an app would: no C shims, no libav"
  "StreamToPeer|EncoderSession MediaIO RTPOut CongestionControl StreamControl Glibc Synchronization|the README's example (Examples/StreamToPeer) uses the public libraries as an app would: no C shims, no libav"
  "RenderWithHook|Composition Timeline EncoderSession MediaCore MediaIO Glibc Synchronization|the README's post-composition hook example (Examples/RenderWithHook) uses the public libraries as an app would: no C shims, no libav"
  "rtenc|MediaCore Bitstream EncoderSession LibAVLog RTPOut MediaIO BitrateAdaptation NetworkEmulator CongestionControl CongestionSimulation CongestionSimulationEncoder StreamControl Composition Timeline WebRTC WebRTCTransport WebRTCHTTP WHIPClient ArgumentParser Logging FoundationEssentials Dispatch Glibc Synchronization|the CLI is wiring only: no libav calls of its own (no CLibAV), no C shims"
)

# Narrower rules inside a module: module | import | the only files (under Sources/<module>/, space-separated globs)
# that may import it.
FILE_RULES=(
  "Bitstream|Glibc|ByteCursor.swift"
  "Bitstream|Musl|ByteCursor.swift"
  "Bitstream|Darwin|ByteCursor.swift"
  "EncoderSession|CLibAV|LibAV*.swift X264Backend.swift X265Backend.swift VAAPIBackend.swift VAAPISurfaces.swift"
  "Composition|CCompositionKernels|NativeKernels.swift"
)

# Sans-IO code: module | directory under Sources/<module>/ (empty: the whole module) | what its files may import |
# why. Besides the imports, its files may not read a clock (CLOCK_READS): time is handed in.
DIR_RULES=(
  "RTP||MediaCore Bitstream|RTP is the sans-IO RTP core: time is handed in; no sockets, C shims, threads or clock reads"
  "WebRTC||MediaCore Bitstream RTP|WebRTC is sans-IO: time and randomness are handed in; no sockets, C shims or clock reads"
  "CongestionControl||MediaCore RTP|CongestionControl is pure: time is handed in on every call; no clock reads"
  "CongestionSimulation||MediaCore Bitstream RTP CongestionControl|CongestionSimulation is pure: simulated time in integer nanoseconds, seeded randomness; no clock reads"
  "Timeline||MediaCore|Timeline is pure: a document in, a plan out; no files, no clock reads (the engine and the CLI read files)"
)
CLOCK_READS='wallClockNow\(|clock_gettime|gettimeofday|ContinuousClock|SuspendingClock|MonotonicMediaClock|Date\(\)'

# C targets: no Swift files, dependencies checked like the others.
C_TARGETS="CLibAV CUDPShim CSRTP CDTLS CCompositionKernels"

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
    local place="$dir_module${dir:+/$dir}"
    [[ -d "$root/Sources/$place" ]] || continue
    while IFS=: read -r file line imported; do
      [[ -n "$file" ]] || continue
      if [[ " $dir_allowed " != *" $imported "* ]]; then
        echo "${file#"$root"/}:$line: forbidden import of $imported in $place — $dir_reason" >&2
        failures=$((failures + 1))
      fi
    done < <(imports_of "$root/Sources/$place")
    while IFS=: read -r file line _; do
      [[ -n "$file" ]] || continue
      echo "${file#"$root"/}:$line: clock read in $place — $dir_reason" >&2
      failures=$((failures + 1))
    done < <(grep -rnE --include='*.swift' "$CLOCK_READS" "$root/Sources/$place" || true)
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

  # --- libav* and libva are opened on demand (Sources/CLibAV/libraries.c), never linked ------------------------------
  # Linked, libavcodec alone makes every process map ~96 libraries at start; the loader's table is the one way in,
  # and with nothing linked a direct call anywhere else is a link error. So: no target links them, and dlopen lives
  # in libraries.c only.
  local library
  for library in avcodec avutil swscale swresample avformat avdevice avfilter postproc va va-drm va-x11 x264; do
    if grep -v '^[[:space:]]*//' "$root/Package.swift" | grep -q "linkedLibrary(\"$library\")"; then
      echo "Package.swift: links $library — libav*/libva are opened on first use (Sources/CLibAV/libraries.c), not linked" >&2
      failures=$((failures + 1))
    fi
  done
  while IFS=: read -r file line _; do
    [[ -n "$file" ]] || continue
    echo "${file#"$root"/}:$line: dlopen outside Sources/CLibAV/libraries.c — every library rtenc opens on demand goes through its table" >&2
    failures=$((failures + 1))
  done < <(grep -rn --include='*.c' --include='*.h' --include='*.swift' -E '\bdlopen[[:space:]]*\(' "$root/Sources" 2>/dev/null |
    grep -v "^$root/Sources/CLibAV/libraries.c:" || true)

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
    .target(name: "CLibAV"),
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
  printf '#include <dlfcn.h>\nvoid *open_it(void) { return dlopen("libavcodec.so.59", RTLD_NOW); }\n' >"$tmp/Sources/CLibAV/libraries.c"
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
    "Sources/Overlays/Clip.swift|import MediaCore|Sources/Overlays has no row"
    "Sources/Composition/Engine.swift|import EncoderSession|Sources/Composition/Engine.swift:1: forbidden import of EncoderSession in Composition"
    "Sources/Timeline/Plan/Bad.swift|import MediaIO|Sources/Timeline/Plan/Bad.swift:1: forbidden import of MediaIO in Timeline"
    "Sources/RTP/Session/Bad.swift|import CUDPShim|Sources/RTP/Session/Bad.swift:1: forbidden import of CUDPShim in RTP"
    "Sources/RTP/Session/Bad.swift|import MediaCore\nlet now = wallClockNow()|Sources/RTP/Session/Bad.swift:2: clock read in RTP"
    "Sources/RTP/Pacer.swift|import Glibc|Sources/RTP/Pacer.swift:1: forbidden import of Glibc in RTP"
    "Package.swift|.executableTarget(name: \"rtenc\", dependencies: [\"EncoderSession\", \"CLibAV\"])|Package.swift: target rtenc depends on CLibAV"
    "Package.swift|.target(\n    name: \"MediaIO\",\n    dependencies: [\"MediaCore\", \"EncoderSession\"]\n)|Package.swift: target MediaIO depends on EncoderSession"
    "Package.swift|.target(name: \"MediaCore\", dependencies: [.product(name: \"Logging\", package: \"swift-log\")])|Package.swift: target MediaCore depends on Logging"
    "Package.swift|.target(name: \"CLibAV\", linkerSettings: [.linkedLibrary(\"avcodec\")])|Package.swift: links avcodec"
    "Package.swift|.target(name: \"WebRTCHTTP\", dependencies: [.product(name: \"AsyncHTTPClient\", package: \"async-http-client\")])|Package.swift: target WebRTCHTTP depends on AsyncHTTPClient"
    "Sources/CLibAV/encoder_shim.c|void *h(void) { return dlopen(\"libx264.so\", 1); }|Sources/CLibAV/encoder_shim.c:1: dlopen outside Sources/CLibAV/libraries.c"
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
    rmdir "$tmp/Sources/Overlays" "$tmp/Sources/Composition" "$tmp/Sources/Timeline/Plan" "$tmp/Sources/Timeline" "$tmp/Sources/RTP/Session" "$tmp/Sources/RTP" 2>/dev/null || true
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
