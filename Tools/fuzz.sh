#!/usr/bin/env bash
# Fuzzes the decoders of untrusted input with libFuzzer (swiftc -sanitize=fuzzer,address).
#
#   Tools/fuzz.sh list                        the targets
#   Tools/fuzz.sh TARGET [SECONDS] [-- ARGS]  fuzz one for SECONDS (default 60); ARGS go to libFuzzer
#   Tools/fuzz.sh all [SECONDS]               every target in turn, SECONDS each
#   Tools/fuzz.sh seeds                       regenerate Fuzz/Seeds with Fuzz/SeedGen
#
# Entry points live in Fuzz/Targets, outside Sources/ and Tests/, so SwiftPM never builds them.
# Each target is compiled straight from the module sources it needs (one Swift module per
# package module, so `import`s stay as they are), instrumented, and cached under .build/fuzz by
# a hash of sources and flags. The corpus grows in .build/fuzz/corpus/TARGET from the committed
# seeds in Fuzz/Seeds/TARGET. A crash prints its saved input and the command that replays it and
# exits non-zero; turn it into a case of FuzzRegressionTests ("must only not crash").
# FUZZ_OPT=-Onone builds without optimization (slower, exact stack traces), in its own cache.
# To fuzz on past a known, unfixed crash: Tools/fuzz.sh TARGET SECONDS -- -fork=1 -ignore_crashes=1
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
DIE_PREFIX=""
cd "$REPO_ROOT"

use_swift_toolchain swiftc

TARGETS=(record message reassembler invite handshake terminal-input frame rendezvous)
OPT=${FUZZ_OPT:--O}
ROOT=.build/fuzz
BUILD=$ROOT/build${OPT}
# As Package.swift builds every target (`strict`), plus what fuzzing needs. Line tables are enough
# for file:line in stack traces (full -g makes the driver leave a debugger module in the checkout).
COMMON=(-swift-version 6 -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
        "$OPT" -gline-tables-only -I "$BUILD/modules" -I Sources/C/CTurboJPEG -I Sources/C/CZstd)
FLAGS=("${COMMON[@]}" -parse-as-library "-sanitize=fuzzer,address")

# The package modules a target needs, in dependency order.
target_modules() {
  case "$1" in
    record | message | reassembler | invite | handshake | rendezvous) echo ZRCProtocol ;;
    terminal-input) echo ZRCProtocol ZRCViewer ;;
    frame) echo ZRCProtocol ZRCFrames ZRCJPEG ZRCZstd ;;
    *) say "unknown target '$1' (Tools/fuzz.sh list shows them)"; return 1 ;;
  esac
}

module_sources() {
  case "$1" in
    # Only the input path of the viewer: the rest of ZRCViewer needs swift-extras-base64 and more.
    ZRCViewer) ls Sources/Core/ZRCViewer/Input/{TerminalInputParser,TerminalInputParser+Replies,TerminalEvent,ViewerInputMapper}.swift \
                  Sources/Core/ZRCViewer/Viewport.swift ;;
    *) find Sources/*/"$1" -name '*.swift' | LC_ALL=C sort ;;
  esac
}

# The entry point and what is compiled into it.
target_sources() {
  echo "Fuzz/Targets/$1.swift" Fuzz/Support/Harness.swift
  case "$1" in
    handshake | rendezvous) echo Fuzz/Support/TransparentCrypto.swift ;;
    # The controller's real decoder, without the rest of ZRCCommandSupport (argument parsing, key stores).
    frame) echo Sources/Executables/ZRCCommandSupport/FrameCodec.swift Sources/Executables/ZRCCommandSupport/CommandError.swift ;;
  esac
}

# Two Swift builds at once starve each other on a small machine (and a package build in the same
# checkout may be running): wait for the other one to finish.
wait_for_other_builds() {
  command -v pgrep >/dev/null || return 0
  local said=
  # Programs, not mentions: a shell whose command line mentions swiftc is no build.
  while pgrep -f '^([^ ]*/)?(swift-build|swift-frontend|swiftc|swift-driver)( |$)' >/dev/null; do
    [[ -n $said ]] || say "waiting for another Swift build to finish"
    said=1
    sleep 15
  done
}

# Runs swiftc unless the hash of the compiler, its arguments and their file contents matches the
# last run. $1 names the build, $2 the output, $3 the modules it imports (their hashes count
# too); the rest are swiftc arguments.
cached_swiftc() {
  local name=$1 output=$2 imports=$3; shift 3
  local stamp="$BUILD/stamps/$name" hash a
  hash=$( {
    swiftc --version 2>&1
    printf '%s\n' "$@"
    for a in "$@"; do if [[ -f $a ]]; then cat "$a"; fi; done
    for a in $imports; do cat "$BUILD/stamps/module-$a"; done
  } | sha256sum | cut -d' ' -f1)
  if [[ -f $output && -f $stamp && $(cat "$stamp") == "$hash" ]]; then return 0; fi
  mkdir -p "$BUILD/stamps" "$BUILD/modules" "$BUILD/bin" "$ROOT/logs"
  wait_for_other_builds
  say "compiling $name ($OPT)"
  # The linker warns about every ASan symbol it cannot export: keep the log, show it on failure.
  if ! swiftc "$@" -o "$output" >"$ROOT/logs/build-$name.log" 2>&1; then
    grep -v "Cannot export local symbol" "$ROOT/logs/build-$name.log" | tail -40 >&2
    say "compiling $name failed (log: $ROOT/logs/build-$name.log)"
    return 1
  fi
  echo "$hash" >"$stamp"
}

build_module() {
  local module=$1 sources imports=
  mapfile -t sources < <(module_sources "$module")
  [[ $module == ZRCFrames || $module == ZRCViewer ]] && imports=ZRCProtocol
  # -enable-testing: harnesses may reach internals with @testable, as the tests do.
  cached_swiftc "module-$module" "$BUILD/modules/$module.o" "$imports" "${FLAGS[@]}" -enable-testing -wmo -module-name "$module" \
    -emit-module -emit-module-path "$BUILD/modules/$module.swiftmodule" -c "${sources[@]}"
}

build_target() {
  local target=$1 modules objects=() module
  modules=$(target_modules "$target")
  # Explicit returns: `all` calls this where `set -e` does not apply.
  for module in $modules; do
    build_module "$module" || return 1
    objects+=("$BUILD/modules/$module.o")
  done
  local libs=()
  [[ $modules == *ZRCJPEG* ]] && libs=(-lturbojpeg -lzstd)
  # shellcheck disable=SC2046  # target_sources lists plain paths
  cached_swiftc "target-$target" "$BUILD/bin/$target" "$modules" "${FLAGS[@]}" -wmo -module-name "Fuzz_${target//-/_}" \
    $(target_sources "$target") "${objects[@]}" "${libs[@]}"
}

# Fuzzes one target; prints executions and rate, and the saved input of a crash.
run_target() {
  local target=$1 seconds=$2; shift 2
  build_target "$target" || return 1
  local corpus="$ROOT/corpus/$target" crashes="$ROOT/crashes/$target" log="$ROOT/logs/$target.log"
  mkdir -p "$corpus" "$crashes"
  say "$target for $seconds s (log: $log)"
  local start status=0
  start=$(date +%s)
  touch "$log.start"
  # -timeout: a single input taking 10 s is a finding (a hang), not a slow machine.
  # SWIFT_BACKTRACE: Swift's own crash handler reads the stack in a way ASan reports as a bug of
  # its own; libFuzzer's handler prints the (symbolized) stack instead.
  SWIFT_BACKTRACE=enable=no "$BUILD/bin/$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
    -artifact_prefix="$crashes/" "$@" "$corpus" "Fuzz/Seeds/$target" >"$log" 2>&1 &
  local fuzzer=$!
  # A script's background job ignores Ctrl-C: pass it on as SIGTERM, on which libFuzzer stops
  # and still prints its statistics.
  trap 'kill -TERM "$fuzzer" 2>/dev/null || true' INT TERM
  # The console gets libFuzzer's progress without a line per new corpus input (the log has all).
  tail -n +1 -f --pid=$fuzzer "$log" | grep --line-buffered -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE)' >&2 || true
  wait $fuzzer || status=$?
  trap - INT TERM
  local elapsed=$(( $(date +%s) - start )) runs rate found
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  # -fork=N runs report no final stats: take the last progress line's count.
  [[ -n $runs ]] || runs=$(grep -o -E '^#[0-9]+' "$log" | tr -d '#' | tail -1 || true)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  [[ -n $rate ]] || rate=$(( ${runs:-0} / (elapsed > 0 ? elapsed : 1) ))
  say "$target: ${runs:-?} executions in $elapsed s ($rate/s), corpus $(find "$corpus" -mindepth 1 -maxdepth 1 -not -name '.*' -printf . | wc -c) inputs"
  # Inputs saved during this run (with -fork and -ignore_crashes libFuzzer goes on after a crash).
  found=$(find "$crashes" -type f -newer "$log.start" 2>/dev/null | sort || true)
  if [[ $status -eq 0 && -z $found ]]; then
    say "$target: no crash"
    return 0
  fi
  # libFuzzer's exit code for a run stopped by a signal (Ctrl-C).
  if [[ $status -eq 72 && -z $found ]]; then
    say "$target: interrupted, no crash"
    return 130
  fi
  say "$target: FAILED (libFuzzer exit $status); the stack is in $log"
  local saved
  for saved in $found; do
    say "crashing input: $saved ($(wc -c <"$saved") bytes, base64 $(base64 -w0 "$saved" | head -c 200))"
    say "  replay:   SWIFT_BACKTRACE=enable=no $BUILD/bin/$target $saved"
    say "  minimize: SWIFT_BACKTRACE=enable=no $BUILD/bin/$target -minimize_crash=1 -runs=200000" \
      "-exact_artifact_path=$saved.min $saved"
  done
  return 1
}

generate_seeds() {
  for module in ZRCProtocol ZRCFrames ZRCJPEG ZRCZstd; do build_module "$module"; done
  # The generator has a main of its own: link the coverage hooks without libFuzzer's main.
  local runtimes runtime
  runtimes=("$(dirname "$(command -v swiftc)")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$(uname -m)".a)
  runtime=${runtimes[0]}
  [[ -f "$runtime" ]] || die "no libFuzzer runtime without main in the toolchain ($runtime)"
  cached_swiftc seedgen "$BUILD/bin/seedgen" "ZRCProtocol ZRCFrames ZRCJPEG ZRCZstd" "${COMMON[@]}" -sanitize=address -module-name SeedGen Fuzz/SeedGen/main.swift \
    Fuzz/Support/TransparentCrypto.swift "$BUILD"/modules/{ZRCProtocol,ZRCFrames,ZRCJPEG,ZRCZstd}.o "$runtime" -lturbojpeg -lzstd
  # Globals of a main file are never released, which LeakSanitizer would report at exit.
  ASAN_OPTIONS=detect_leaks=0 "$BUILD/bin/seedgen" Fuzz/Seeds
}

case "${1:-}" in
  list) printf '%s\n' "${TARGETS[@]}" ;;
  seeds) generate_seeds ;;
  all)
    seconds=${2:-60} failed=()
    [[ $seconds =~ ^[0-9]+$ ]] || { say "SECONDS must be a whole number, not '$seconds'"; exit 2; }
    for target in "${TARGETS[@]}"; do
      status=0
      run_target "$target" "$seconds" || status=$?
      [[ $status -ne 130 ]] || exit 130
      [[ $status -eq 0 ]] || failed+=("$target")
    done
    if [[ ${#failed[@]} -gt 0 ]]; then say "failed: ${failed[*]}"; exit 1; fi
    say "all ${#TARGETS[@]} targets ran $seconds s each without a crash" ;;
  "" | -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" ;;
  *)
    target=$1 seconds=60
    shift
    if [[ $# -gt 0 && $1 != -- ]]; then seconds=$1; shift; fi
    [[ ${1:-} == -- ]] && shift
    target_modules "$target" >/dev/null
    [[ $seconds =~ ^[0-9]+$ ]] || { say "SECONDS must be a whole number, not '$seconds'"; exit 2; }
    run_target "$target" "$seconds" "$@" ;;
esac
