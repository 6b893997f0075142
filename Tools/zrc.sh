#!/usr/bin/env bash
# ZRC's main command: prepares everything ZRC needs on this machine and runs it.
#
#   Tools/zrc.sh demo          install, build, start a host, pair a controller with it, and view
#                              its screen in this terminal (ping it when this is not a terminal)
#   Tools/zrc.sh host ARGS...  run zrc-host in the prepared environment (e.g. `host pair`)
#   Tools/zrc.sh ctl ARGS...   run zrc-ctl in the prepared environment (e.g. `ctl devices`)
#   Tools/zrc.sh env           print the exports that let another shell use the same environment
#   Tools/zrc.sh stop          stop the host, X display and keyring this script started
#
# "Prepared" means: Debian packages installed (Tools/install-deps.sh), release binaries built, an X
# display (a virtual Xvfb one when DISPLAY is not set), and a Secret Service keyring (the desktop's
# when there is one; otherwise a private D-Bus session with gnome-keyring, whose login keyring is
# unlocked with $ZRC_KEYRING_PASSWORD or a password asked for on the terminal).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"
repo=$REPO_ROOT

state="${XDG_STATE_HOME:-$HOME/.local/state}/zrc/session"
mkdir -p "$state" && chmod 700 "$state"

# A pid file names a process we started only while that pid still runs the same program
# (pids are reused): the program's name is recorded next to it. The name is given, not read from
# /proc right after `&`, when the child may not have exec'd its program yet.
alive() {
  [[ -f "$state/$1.pid" && -f "$state/$1.comm" ]] || return 1
  local pid; pid=$(cat "$state/$1.pid")
  [[ -n "$pid" ]] && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$(cat "$state/$1.comm")" ]]
}
remember() { echo "$2" >"$state/$1.pid"; echo "$3" >"$state/$1.comm"; }

prepare_toolchain() {
  "$repo/Tools/install-deps.sh"
  use_swift_toolchain swift
  bin="$repo/.build/release"
  # Build only when a source is newer than the programs: every `Tools/zrc.sh ctl …` would otherwise
  # spend seconds in the build planner and print its output before the command's own.
  if [[ -x "$bin/zrc-host" && -x "$bin/zrc-ctl" ]] \
    && [[ -z "$(find "$repo/Package.swift" "$repo/Sources" -newer "$bin/zrc-host" -print -quit 2>/dev/null)" ]] \
    && [[ -z "$(find "$repo/Package.swift" "$repo/Sources" -newer "$bin/zrc-ctl" -print -quit 2>/dev/null)" ]]; then
    return
  fi
  say "building (release; the first build takes a few minutes; log: $state/build.log)"
  # The Swift runtime and Foundation linked in: the binaries run without the toolchain's shared
  # libraries, and the host touches fewer pages of code (about 6 MiB less resident memory).
  if ! swift build -c release --static-swift-stdlib --product zrc-host >"$state/build.log" 2>&1 \
    || ! swift build -c release --static-swift-stdlib --product zrc-ctl >>"$state/build.log" 2>&1; then
    grep -v "prohibited flag" "$state/build.log" | tail -40 >&2
    die "the build failed (full log: $state/build.log)"
  fi
  # The linker leaves an unchanged product's file alone: mark both as built from these sources.
  touch "$bin/zrc-host" "$bin/zrc-ctl"
}

prepare_display() {
  if [[ -n "${DISPLAY:-}" ]] && xdpyinfo >/dev/null 2>&1; then return; fi
  if alive xvfb && [[ -f "$state/display" ]]; then
    DISPLAY=$(cat "$state/display")
    export DISPLAY XAUTHORITY="$state/xauthority"
    return
  fi
  say "no X display given: starting a virtual one (Xvfb, 1920x1080) that only you can reach"
  # Its own X authority cookie and display number (Tools/lib/common.sh says why).
  start_xvfb "$state" 1920x1080x24
  remember xvfb "$XVFB_PID" Xvfb
  echo "$DISPLAY" >"$state/display"
  xsetroot -solid '#2e5c8a' || true
  # Something to look at and work with: a terminal running top, a clock, eyes that follow the pointer.
  xterm -geometry 100x32+60+60 -bg '#fdf6e3' -fg '#073642' -title 'ZRC demo' -e top >/dev/null 2>&1 &
  remember xterm $! xterm
  xclock -geometry 180x180-60+60 -update 1 >/dev/null 2>&1 &
  remember xclock $! xclock
  xeyes -geometry 200x120-60-60 >/dev/null 2>&1 &
  remember xeyes $! xeyes
}

keyring_works() {
  [[ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]] || return 1
  # Any answer from the Secret Service (even "no such item") means it is there and unlocked.
  timeout 5 secret-tool search --all application zrc-probe >/dev/null 2>&1
}

prepare_keyring() {
  if keyring_works; then return; fi
  if [[ -S "$state/bus" ]] && alive dbus; then
    export DBUS_SESSION_BUS_ADDRESS="unix:path=$state/bus"
    keyring_works && return
  fi
  say "no unlocked Secret Service keyring: starting a private D-Bus session with gnome-keyring"
  rm -f "$state/bus"
  dbus-daemon --session --fork --address="unix:path=$state/bus" --print-pid=3 3>"$state/dbus.pid.tmp" >/dev/null \
    || die "could not start dbus-daemon"
  remember dbus "$(tr -d '[:space:]' <"$state/dbus.pid.tmp")" dbus-daemon
  rm -f "$state/dbus.pid.tmp"
  export DBUS_SESSION_BUS_ADDRESS="unix:path=$state/bus"
  local password="${ZRC_KEYRING_PASSWORD:-}"
  # Nothing started after this point (the host, the viewer, the X clients) inherits the password.
  unset ZRC_KEYRING_PASSWORD
  if [[ -z "$password" ]]; then
    [[ -t 0 ]] || die "set ZRC_KEYRING_PASSWORD (the password of the keyring ZRC keeps its identity keys in), or run this in a terminal"
    read -r -s -p "zrc: keyring password (chosen now on first use; it protects ZRC's identity keys): " password
    echo >&2
  fi
  # The daemon is activated on our private bus and exits with it; `stop` ends the bus.
  printf '%s' "$password" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  password=""
  keyring_works || die "the keyring did not unlock (wrong password for an existing keyring in ~/.local/share/keyrings?)"
}

prepare() {
  prepare_toolchain
  # The keyring first: its password leaves the environment before any X client or host starts.
  prepare_keyring
  prepare_display
}


start_host() {
  if alive host; then return; fi
  say "starting zrc-host serve (log: $state/host.log)"
  "$bin/zrc-host" serve --listen "$listen" >"$state/host.out" 2>"$state/host.log" &
  remember host $! zrc-host
  for _ in $(seq 100); do
    grep -q "zrc-host: serving" "$state/host.out" 2>/dev/null && { cat "$state/host.out" >&2; return; }
    kill -0 "$(cat "$state/host.pid")" 2>/dev/null || break
    sleep 0.1
  done
  cat "$state/host.log" >&2
  die "zrc-host serve did not start"
}

listen="${ZRC_LISTEN:-0.0.0.0:7420}"
# The address this machine's own controller uses: loopback when the host listens everywhere.
local_address() {
  local host="${listen%:*}"
  case "$host" in 0.0.0.0|"[::]"|"") echo "127.0.0.1:${listen##*:}" ;; *) echo "$listen" ;; esac
}

demo() {
  prepare
  start_host
  if "$bin/zrc-ctl" devices | grep -q '^demo '; then
    say "this controller is already paired with the host as \`demo\`"
  else
    say "creating a one-time invite and pairing this machine's controller with it"
    local invite
    invite=$("$bin/zrc-host" pair --json --address "$(local_address)" | sed -n 's/.*"invite":"\([^"]*\)".*/\1/p')
    [[ -n "$invite" ]] || die "no invite from zrc-host pair"
    printf '%s\n' "$invite" | "$bin/zrc-ctl" pair --name demo  # printf is a builtin: the invite is in no argv
  fi
  "$bin/zrc-ctl" ping demo --count 3 --interval 0
  if [[ -t 0 && -t 1 ]]; then
    say "opening the viewer: Ctrl+] then ? for help, Ctrl+] then q to leave"
    sleep 1
    "$bin/zrc-ctl" view demo || true
  else
    say "not in a terminal: skipping the viewer (run \`Tools/zrc.sh ctl view demo\` in one)"
  fi
  cat <<TXT

The host keeps running in the background (pid $(cat "$state/host.pid"), log $state/host.log).
Next:  Tools/zrc.sh ctl view demo      view and control the screen again
       Tools/zrc.sh host pair          an invite for another controller
       Tools/zrc.sh stop               stop what this script started
TXT
}

stop_all() {
  local name
  for name in host xterm xclock xeyes xvfb dbus; do
    if alive "$name"; then kill "$(cat "$state/$name.pid")" 2>/dev/null || true; say "stopped $name"; fi
    rm -f "$state/$name.pid" "$state/$name.comm"
  done
  rm -f "$state/bus" "$state/display" "$state/xvfb.auth" "$state/xauthority" "$state/xvfb.display"
}

case "${1:-demo}" in
  demo) demo ;;
  host) shift; prepare; exec "$bin/zrc-host" "$@" ;;
  ctl) shift; prepare; exec "$bin/zrc-ctl" "$@" ;;
  env) prepare; printf "export DISPLAY=%q XAUTHORITY=%q DBUS_SESSION_BUS_ADDRESS=%q PATH=%q:\"\$PATH\"\n" "$DISPLAY" "${XAUTHORITY:-$HOME/.Xauthority}" "$DBUS_SESSION_BUS_ADDRESS" "$bin" ;;
  stop) stop_all ;;
  -h|--help|help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) die "unknown command \`$1\` (try: demo, host, ctl, env, stop)" ;;
esac
