#!/usr/bin/env bash
# Runs one command inside a private, throwaway test environment:
#
#   - a fresh HOME and XDG_{CONFIG,DATA,CACHE,STATE}_HOME under a temporary directory, and an
#     XDG_RUNTIME_DIR of mode 0700, so nothing touches the real user's files or keyring;
#   - a private D-Bus session bus (dbus-run-session) with gnome-keyring-daemon's secrets component,
#     whose login keyring is freshly created and unlocked (password "pw");
#   - an Xvfb display on a free display number, with its own X authority cookie, exported as DISPLAY;
#   - TMPDIR inside the temporary directory.
#
# Everything is stopped and the temporary directory removed on every exit path (normal exit, error,
# Ctrl-C, SIGTERM, SIGHUP). The command's exit status is this script's exit status. A service that
# cannot be started is reported with the reason and a non-zero exit (2); the command is then not run.
#
# Usage: Tools/with-test-services.sh [--no-x] [--keyring=MODE] [--] COMMAND [ARG...]
#
#   --no-x            start no X server; DISPLAY, WAYLAND_DISPLAY and XAUTHORITY are unset.
#   --keyring=MODE    the Secret Service state the command sees:
#                       unlocked  login keyring created and unlocked; it is the default collection (default)
#                       locked    login keyring created, then locked (unlocking would need a prompt)
#                       absent    gnome-keyring runs but no login keyring exists (default alias unset)
#                       none      a D-Bus session bus with no Secret Service on it and none activatable
#
# The command sees ZRC_TEST_SERVICES=1 and ZRC_TEST_KEYRING=MODE (and ZRC_TEST_KEYRING_PID, the
# daemon's pid, unless MODE is none); the ZRC keyring tests refuse to run without them, so they can
# never write into a real user's keyring.
#
# Example: Tools/with-test-services.sh flock /tmp/zrc-swift-build.lock swift test --skip-build --filter ZRCKeyStoreTests
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# A caller may start this script with signals blocked, which the keyring daemon and the tests
# would inherit (Tools/lib/common.sh says more): re-exec with none blocked first.
reset_signal_mask "$@"
# A service that cannot be started: its reason, and status 2.
DIE_PREFIX=""
DIE_STATUS=2

SCRIPT_PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
readonly SCRIPT_PATH
readonly TEST_KEYRING_PASSWORD=pw
readonly STARTUP_TIMEOUT_TENTHS=100 # 10 s for the keyring to come up (Xvfb: XVFB_STARTUP_SECONDS)
readonly SIGNAL_GRACE_TENTHS=50     # 5 s between SIGTERM and SIGKILL when stopping the command

usage() {
  sed -n '/^# Usage:/,/^# Example:/p' "$SCRIPT_PATH" | sed 's/^# \{0,1\}//'
}

# Every process this script starts records its pid in $ZRC_TS_DIR/pids/NAME, to check that it is
# alive and to stop it in order on the normal path.
record_pid() { echo "$2" >"$ZRC_TS_DIR/pids/$1"; }

# shellcheck disable=SC2317  # run from the cleanup stack (at_exit), where shellcheck sees no call
stop_recorded() {
  local name pid
  for name in "$@"; do
    [[ -f "$ZRC_TS_DIR/pids/$name" ]] || continue
    pid=$(<"$ZRC_TS_DIR/pids/$name")
    [[ -z "$pid" ]] || stop_pids "$SIGNAL_GRACE_TENTHS" "$pid"
    rm -f "$ZRC_TS_DIR/pids/$name"
  done
}

# Every process started inside the environment inherits ZRC_TS_DIR, whose value is unique to this
# run. Sweeping by it also finds what the command left behind: background children, orphans,
# daemons that forked away. Builtins only, so the sweep never lists its own helper processes.
MARKED=()
# shellcheck disable=SC2317  # reached from the cleanup stack only (remove_environment)
find_marked_pids() {
  MARKED=()
  local environ pid entry entries
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [[ "$pid" == "$$" ]] && continue
    { mapfile -d '' -t entries <"$environ"; } 2>/dev/null || continue
    for entry in "${entries[@]}"; do
      if [[ "$entry" == "ZRC_TS_DIR=$ZRC_TS_DIR" ]]; then
        MARKED+=("$pid")
        break
      fi
    done
  done
}

# shellcheck disable=SC2317  # reached from the cleanup stack only (remove_environment)
sweep_environment() {
  local i
  find_marked_pids
  ((${#MARKED[@]} > 0)) || return 0
  kill -TERM "${MARKED[@]}" 2>/dev/null || true
  for ((i = 0; i < SIGNAL_GRACE_TENTHS; i++)); do
    sleep 0.1
    find_marked_pids
    ((${#MARKED[@]} > 0)) || return 0
  done
  say "killing processes that ignored SIGTERM: ${MARKED[*]}"
  kill -KILL "${MARKED[@]}" 2>/dev/null || true
}

bus_name_has_owner() {
  dbus-send --session --print-reply=literal --reply-timeout=2000 --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q true
}

secrets_call() { # object-path interface.method args...
  local path=$1 method=$2
  shift 2
  dbus-send --session --print-reply=literal --reply-timeout=5000 --dest=org.freedesktop.secrets "$path" "$method" "$@"
}

default_collection() { secrets_call /org/freedesktop/secrets org.freedesktop.Secret.Service.ReadAlias string:default | tr -d ' '; }

collection_locked() {
  secrets_call "$1" org.freedesktop.DBus.Properties.Get string:org.freedesktop.Secret.Collection string:Locked |
    grep -o -E 'true|false'
}

# ---------------------------------------------------------------------------------------------
# Inner stage: runs under dbus-run-session, so DBUS_SESSION_BUS_ADDRESS names the private bus.
# ---------------------------------------------------------------------------------------------
inner_stage() {
  : >"$ZRC_TS_DIR/inner-started"
  [[ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]] || die "dbus-run-session started no session bus (DBUS_SESSION_BUS_ADDRESS is empty)"
  local mode=$ZRC_TEST_KEYRING keyring_log=$ZRC_TS_DIR/gnome-keyring.log i

  # The command first, then the keyring it may still be using. No INT trap: Ctrl-C reaches the
  # command itself, which may want to report before it ends.
  at_exit stop_recorded command keyring
  exit_on_signals TERM HUP

  if [[ "$mode" != none ]]; then
    if [[ "$mode" == absent ]]; then
      gnome-keyring-daemon --foreground --components=secrets </dev/null >"$keyring_log" 2>&1 &
    else
      # --unlock reads the login keyring password from stdin; with a fresh HOME it creates the
      # login keyring with that password, and makes it the default collection.
      printf '%s' "$TEST_KEYRING_PASSWORD" |
        gnome-keyring-daemon --foreground --unlock --components=secrets >"$keyring_log" 2>&1 &
    fi
    record_pid keyring $!
    for ((i = 0; i < STARTUP_TIMEOUT_TENTHS; i++)); do
      bus_name_has_owner org.freedesktop.secrets && break
      kill -0 "$(<"$ZRC_TS_DIR/pids/keyring")" 2>/dev/null ||
        die "gnome-keyring-daemon exited before it claimed org.freedesktop.secrets on the test bus; its log: $(tr '\n' ' ' <"$keyring_log")"
      sleep 0.1
    done
    bus_name_has_owner org.freedesktop.secrets ||
      die "gnome-keyring-daemon did not claim org.freedesktop.secrets within $((STARTUP_TIMEOUT_TENTHS / 10)) s; its log: $(tr '\n' ' ' <"$keyring_log")"

    local default
    default=$(default_collection) || die "the Secret Service does not answer ReadAlias(\"default\"); gnome-keyring log: $(tr '\n' ' ' <"$keyring_log")"
    case "$mode" in
    absent)
      [[ "$default" == / ]] || die "expected no default collection in a fresh HOME, found $default"
      ;;
    unlocked | locked)
      [[ "$default" == /org/freedesktop/secrets/collection/login ]] ||
        die "the login keyring was not created as the default collection (ReadAlias(\"default\") = $default)"
      [[ "$(collection_locked "$default")" == false ]] || die "gnome-keyring-daemon --unlock left the login keyring locked"
      if [[ "$mode" == locked ]]; then
        # secret-tool lock crashes in libsecret 0.20.5 (after locking), so lock through D-Bus.
        secrets_call /org/freedesktop/secrets org.freedesktop.Secret.Service.Lock "array:objpath:$default" >/dev/null ||
          die "could not lock the login keyring through org.freedesktop.Secret.Service.Lock"
        [[ "$(collection_locked "$default")" == true ]] || die "the login keyring still reports Locked=false after Lock"
      fi
      ;;
    esac
  else
    bus_name_has_owner org.freedesktop.secrets && die "org.freedesktop.secrets is owned on a bus that should have no Secret Service"
  fi

  if [[ -f "$ZRC_TS_DIR/pids/keyring" ]]; then
    ZRC_TEST_KEYRING_PID=$(<"$ZRC_TS_DIR/pids/keyring")
    export ZRC_TEST_KEYRING_PID
  fi
  "$@" &
  record_pid command $!
  local rc=0
  wait "$(<"$ZRC_TS_DIR/pids/command")" || rc=$?
  # A signal trap that interrupted `wait` exits on its own; reaching here means the command ended.
  rm -f "$ZRC_TS_DIR/pids/command"
  exit "$rc"
}

# ---------------------------------------------------------------------------------------------
# Outer stage: temporary directory, environment, X server, then the bus and the inner stage.
# ---------------------------------------------------------------------------------------------
# The X server: a private Xvfb with its own display number and cookie (Tools/lib/common.sh).
start_test_display() {
  require_tool Xvfb xvfb
  require_tool xdpyinfo x11-utils
  require_tool xauth xauth
  require_tool mcookie util-linux
  start_xvfb "$ZRC_TS_DIR" 1280x800x24
  record_pid xvfb "$XVFB_PID"
}

# Everything the environment started, and the temporary directory.
# shellcheck disable=SC2317  # run from the cleanup stack (at_exit), where shellcheck sees no call
remove_environment() {
  if [[ -n "${ZRC_TS_DIR:-}" && -d "$ZRC_TS_DIR" ]]; then
    sweep_environment
    rm -rf "$ZRC_TS_DIR"
  fi
}

outer_stage() {
  local with_x=1 mode=unlocked
  while [[ $# -gt 0 ]]; do
    case "$1" in
    --no-x) with_x=0; shift ;;
    --keyring=*) mode=${1#--keyring=}; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    -*) say "unknown option $1"; usage >&2; exit 2 ;;
    *) break ;;
    esac
  done
  [[ $# -gt 0 ]] || { say "no command given"; usage >&2; exit 2; }
  case "$mode" in unlocked | locked | absent | none) ;; *) die "unknown --keyring mode '$mode' (unlocked, locked, absent, none)" ;; esac

  require_tool dbus-run-session dbus-daemon
  require_tool dbus-send dbus-bin
  [[ "$mode" == none ]] || require_tool gnome-keyring-daemon gnome-keyring

  ZRC_TS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/zrc-test-services.XXXXXX") || die "cannot create a temporary directory under ${TMPDIR:-/tmp}"
  export ZRC_TS_DIR
  at_exit remove_environment
  exit_on_signals INT TERM HUP
  chmod 0700 "$ZRC_TS_DIR"
  mkdir -m 0700 "$ZRC_TS_DIR/pids" "$ZRC_TS_DIR/home" "$ZRC_TS_DIR/runtime"

  export HOME=$ZRC_TS_DIR/home
  export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share XDG_CACHE_HOME=$HOME/.cache \
    XDG_STATE_HOME=$HOME/.local/state XDG_RUNTIME_DIR=$ZRC_TS_DIR/runtime
  # ~/.local first: -m with -p would leave the parents it makes at the default mode.
  mkdir -m 0700 "$HOME/.local" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
  # Temporary files go with everything else (SwiftPM, for one, leaves lock files named after
  # the throwaway HOME in $TMPDIR); the command's own temporary files are removed at the end too.
  mkdir -m 0700 "$ZRC_TS_DIR/tmp"
  export TMPDIR=$ZRC_TS_DIR/tmp
  # Nothing of the caller's session may leak in: its bus, keyring, agents or displays.
  unset DBUS_SESSION_BUS_ADDRESS GNOME_KEYRING_CONTROL GNOME_KEYRING_PID SSH_AUTH_SOCK \
    DISPLAY WAYLAND_DISPLAY XAUTHORITY XDG_SESSION_ID XDG_SEAT XDG_VTNR
  export ZRC_TEST_SERVICES=1 ZRC_TEST_KEYRING=$mode

  if [[ $with_x -eq 1 ]]; then start_test_display; fi

  local bus_args=()
  if [[ "$mode" == none ]]; then
    # A session bus without service directories: nothing can be activated, so the Secret Service
    # stays absent even though gnome-keyring is installed.
    cat >"$ZRC_TS_DIR/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$XDG_RUNTIME_DIR</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
    bus_args=(--config-file="$ZRC_TS_DIR/bus.conf")
  fi

  ZRC_TS_STAGE=inner dbus-run-session "${bus_args[@]}" -- "$SCRIPT_PATH" "$@" &
  record_pid bus $!
  local rc=0
  wait "$(<"$ZRC_TS_DIR/pids/bus")" || rc=$?
  rm -f "$ZRC_TS_DIR/pids/bus"
  [[ -e "$ZRC_TS_DIR/inner-started" ]] ||
    die "dbus-run-session could not start a private session bus (exit status $rc); see its messages above"
  exit "$rc"
}

if [[ "${ZRC_TS_STAGE:-}" == inner ]]; then
  unset ZRC_TS_STAGE
  inner_stage "$@"
else
  outer_stage "$@"
fi
