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

# Signal state inherited from the caller: some launchers (Foundation's Process on Linux, called from
# a thread that blocks signals) start this script with SIGTERM and most other signals blocked, and
# every process started here would inherit that mask — a keyring daemon or a test that cannot be
# stopped with SIGTERM. Bash cannot change its mask, so re-exec once through perl (perl-base is
# Essential in Debian) with an empty mask and SIGPIPE back at its default action.
if [[ -n "${ZRC_TS_SIGNALS_RESET:-}" ]]; then
  unset ZRC_TS_SIGNALS_RESET
else
  blocked=0
  while read -r field value; do
    [[ "$field" == SigBlk: ]] && blocked=$value
  done </proc/$$/status
  if [[ "$blocked" == *[1-9a-f]* ]] && command -v perl >/dev/null 2>&1; then
    export ZRC_TS_SIGNALS_RESET=1
    exec perl -MPOSIX -e 'sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die "sigprocmask: $!\n";
      $SIG{PIPE} = "DEFAULT"; exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\n"' -- "$BASH" "${BASH_SOURCE[0]}" "$@"
  elif [[ "$blocked" == *[1-9a-f]* ]]; then
    echo "with-test-services: started with blocked signals (SigBlk $blocked) and no perl to clear them; processes may need SIGKILL to stop" >&2
  fi
  unset blocked field value
fi

readonly SCRIPT_PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
readonly TEST_KEYRING_PASSWORD=pw
readonly STARTUP_TIMEOUT_TENTHS=100 # 10 s for any one service to come up
readonly SIGNAL_GRACE_TENTHS=50     # 5 s between SIGTERM and SIGKILL when stopping the command

fail() {
  echo "with-test-services: $*" >&2
  exit 2
}

usage() {
  sed -n '/^# Usage:/,/^# Example:/p' "$SCRIPT_PATH" | sed 's/^# \{0,1\}//'
}

require_tool() {
  command -v "$1" >/dev/null 2>&1 || fail "'$1' not found; it is part of the Debian package '$2' (Tools/install-deps.sh installs it)"
}

# Sends TERM to one process, waits up to SIGNAL_GRACE_TENTHS, then KILLs it. Quiet if it is gone.
stop_pid() {
  local pid=$1 i
  [[ -n "$pid" ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < SIGNAL_GRACE_TENTHS; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# Every process this script starts records its pid in $ZRC_TS_DIR/pids/NAME, to check that it is
# alive and to stop it in order on the normal path.
record_pid() { echo "$2" >"$ZRC_TS_DIR/pids/$1"; }

stop_recorded() {
  local name pid
  for name in "$@"; do
    [[ -f "$ZRC_TS_DIR/pids/$name" ]] || continue
    pid=$(<"$ZRC_TS_DIR/pids/$name")
    stop_pid "$pid"
    rm -f "$ZRC_TS_DIR/pids/$name"
  done
}

# Every process started inside the environment inherits ZRC_TS_DIR, whose value is unique to this
# run. Sweeping by it also finds what the command left behind: background children, orphans,
# daemons that forked away. Builtins only, so the sweep never lists its own helper processes.
MARKED=()
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
  echo "with-test-services: killing processes that ignored SIGTERM: ${MARKED[*]}" >&2
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
  [[ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]] || fail "dbus-run-session started no session bus (DBUS_SESSION_BUS_ADDRESS is empty)"
  local mode=$ZRC_TEST_KEYRING keyring_log=$ZRC_TS_DIR/gnome-keyring.log i

  trap 'stop_recorded command keyring' EXIT
  trap 'stop_recorded command; exit 143' TERM
  trap 'stop_recorded command; exit 129' HUP

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
        fail "gnome-keyring-daemon exited before it claimed org.freedesktop.secrets on the test bus; its log: $(tr '\n' ' ' <"$keyring_log")"
      sleep 0.1
    done
    bus_name_has_owner org.freedesktop.secrets ||
      fail "gnome-keyring-daemon did not claim org.freedesktop.secrets within $((STARTUP_TIMEOUT_TENTHS / 10)) s; its log: $(tr '\n' ' ' <"$keyring_log")"

    local default
    default=$(default_collection) || fail "the Secret Service does not answer ReadAlias(\"default\"); gnome-keyring log: $(tr '\n' ' ' <"$keyring_log")"
    case "$mode" in
    absent)
      [[ "$default" == / ]] || fail "expected no default collection in a fresh HOME, found $default"
      ;;
    unlocked | locked)
      [[ "$default" == /org/freedesktop/secrets/collection/login ]] ||
        fail "the login keyring was not created as the default collection (ReadAlias(\"default\") = $default)"
      [[ "$(collection_locked "$default")" == false ]] || fail "gnome-keyring-daemon --unlock left the login keyring locked"
      if [[ "$mode" == locked ]]; then
        # secret-tool lock crashes in libsecret 0.20.5 (after locking), so lock through D-Bus.
        secrets_call /org/freedesktop/secrets org.freedesktop.Secret.Service.Lock "array:objpath:$default" >/dev/null ||
          fail "could not lock the login keyring through org.freedesktop.Secret.Service.Lock"
        [[ "$(collection_locked "$default")" == true ]] || fail "the login keyring still reports Locked=false after Lock"
      fi
      ;;
    esac
  else
    bus_name_has_owner org.freedesktop.secrets && fail "org.freedesktop.secrets is owned on a bus that should have no Secret Service"
  fi

  [[ -f "$ZRC_TS_DIR/pids/keyring" ]] && export ZRC_TEST_KEYRING_PID=$(<"$ZRC_TS_DIR/pids/keyring")
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
start_xvfb() {
  require_tool Xvfb xvfb
  require_tool xdpyinfo x11-utils
  require_tool xauth xauth
  require_tool mcookie util-linux

  local cookie server_auth=$ZRC_TS_DIR/xvfb.auth display_file=$ZRC_TS_DIR/xvfb.display log=$ZRC_TS_DIR/xvfb.log i
  cookie=$(mcookie)
  : >"$server_auth"
  : >"$ZRC_TS_DIR/xauthority"
  # The server accepts every cookie in its -auth file whatever display it names; the client looks
  # up its display number, which is known only once Xvfb has picked a free one (-displayfd).
  xauth -q -f "$server_auth" add :0 MIT-MAGIC-COOKIE-1 "$cookie" || fail "xauth could not write $server_auth"
  : >"$display_file"
  # -noreset: by default an X server resets whenever its last client disconnects (root contents and
  # properties wiped, and a client connecting during the reset is refused), which makes a test
  # that connects right after another one closed fail at random.
  Xvfb -displayfd 3 -auth "$server_auth" -nolisten tcp -noreset -screen 0 1280x800x24 3>"$display_file" </dev/null >"$log" 2>&1 &
  record_pid xvfb $!

  local number=
  for ((i = 0; i < STARTUP_TIMEOUT_TENTHS; i++)); do
    number=$(tr -dc 0-9 <"$display_file")
    [[ -n "$number" ]] && break
    kill -0 "$(<"$ZRC_TS_DIR/pids/xvfb")" 2>/dev/null || fail "Xvfb exited during startup; its log: $(tr '\n' ' ' <"$log")"
    sleep 0.1
  done
  [[ -n "$number" ]] || fail "Xvfb did not report a display number within $((STARTUP_TIMEOUT_TENTHS / 10)) s; its log: $(tr '\n' ' ' <"$log")"

  export XAUTHORITY=$ZRC_TS_DIR/xauthority DISPLAY=:$number
  xauth -q -f "$XAUTHORITY" add "$DISPLAY" MIT-MAGIC-COOKIE-1 "$cookie" || fail "xauth could not write $XAUTHORITY"
  for ((i = 0; i < STARTUP_TIMEOUT_TENTHS; i++)); do
    xdpyinfo >/dev/null 2>&1 && return 0
    kill -0 "$(<"$ZRC_TS_DIR/pids/xvfb")" 2>/dev/null || fail "Xvfb on $DISPLAY exited during startup; its log: $(tr '\n' ' ' <"$log")"
    sleep 0.1
  done
  fail "Xvfb on $DISPLAY does not answer xdpyinfo after $((STARTUP_TIMEOUT_TENTHS / 10)) s; its log: $(tr '\n' ' ' <"$log")"
}

outer_cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [[ -n "${ZRC_TS_DIR:-}" && -d "$ZRC_TS_DIR" ]]; then
    sweep_environment
    rm -rf "$ZRC_TS_DIR"
  fi
  exit "$rc"
}

outer_stage() {
  local with_x=1 mode=unlocked
  while [[ $# -gt 0 ]]; do
    case "$1" in
    --no-x) with_x=0; shift ;;
    --keyring=*) mode=${1#--keyring=}; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "with-test-services: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
    esac
  done
  [[ $# -gt 0 ]] || { echo "with-test-services: no command given" >&2; usage >&2; exit 2; }
  case "$mode" in unlocked | locked | absent | none) ;; *) fail "unknown --keyring mode '$mode' (unlocked, locked, absent, none)" ;; esac

  require_tool dbus-run-session dbus-daemon
  require_tool dbus-send dbus-bin
  [[ "$mode" == none ]] || require_tool gnome-keyring-daemon gnome-keyring

  ZRC_TS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/zrc-test-services.XXXXXX") || fail "cannot create a temporary directory under ${TMPDIR:-/tmp}"
  export ZRC_TS_DIR
  trap outer_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  chmod 0700 "$ZRC_TS_DIR"
  mkdir -m 0700 "$ZRC_TS_DIR/pids" "$ZRC_TS_DIR/home" "$ZRC_TS_DIR/runtime"

  export HOME=$ZRC_TS_DIR/home
  export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share XDG_CACHE_HOME=$HOME/.cache \
    XDG_STATE_HOME=$HOME/.local/state XDG_RUNTIME_DIR=$ZRC_TS_DIR/runtime
  mkdir -p -m 0700 "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
  # Temporary files go with everything else (SwiftPM, for one, leaves lock files named after
  # the throwaway HOME in $TMPDIR); the command's own temporary files are removed at the end too.
  mkdir -m 0700 "$ZRC_TS_DIR/tmp"
  export TMPDIR=$ZRC_TS_DIR/tmp
  # Nothing of the caller's session may leak in: its bus, keyring, agents or displays.
  unset DBUS_SESSION_BUS_ADDRESS GNOME_KEYRING_CONTROL GNOME_KEYRING_PID SSH_AUTH_SOCK \
    DISPLAY WAYLAND_DISPLAY XAUTHORITY XDG_SESSION_ID XDG_SEAT XDG_VTNR
  export ZRC_TEST_SERVICES=1 ZRC_TEST_KEYRING=$mode

  if [[ $with_x -eq 1 ]]; then start_xvfb; fi

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
    fail "dbus-run-session could not start a private session bus (exit status $rc); see its messages above"
  exit "$rc"
}

if [[ "${ZRC_TS_STAGE:-}" == inner ]]; then
  unset ZRC_TS_STAGE
  inner_stage "$@"
else
  outer_stage "$@"
fi
