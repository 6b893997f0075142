# shellcheck shell=bash
# The helpers Tools' scripts share, each written once. Sourced, never run; a script loads it
# relative to its own directory, so it works from any working directory and from a fresh clone:
#
#   # shellcheck source=SCRIPTDIR/lib/common.sh
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
#
# (The directive lets `shellcheck -x` follow the file from any working directory:
# Tools/shellcheck.sh checks every script that way.)
#
# What is here, and which script uses it:
#   REPO_ROOT, TOOL               where the checkout is; the name messages start with (all)
#   say, die                      messages on stderr, and leaving with one (all)
#   reset_signal_mask             re-exec with no blocked signals (natlab, mdnslab, with-test-services)
#   at_exit, exit_on_signals,     the cleanup stack: what to undo when the script exits, however it
#     forget_exit_cleanups          exits (package, package-check, with-test-services, natlab, mdnslab)
#   pid_alive, stop_pids          stopping processes: TERM, a grace period, KILL (natlab, mdnslab,
#                                   with-test-services)
#   require_tool                  a program that must be installed, and its Debian package
#   use_swift_toolchain           the Swift toolchain on PATH (test, bench, fuzz, package, zrc)
#   start_xvfb                    a private X display (with-test-services, zrc)
#
# Nothing here runs at load time but setting the variables below: no trap, no output.

# The checkout this file belongs to (Tools/lib/..), whatever the working directory.
# shellcheck disable=SC2034  # for the scripts that source this file
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Every message starts with the name of the script that wrote it (its file name without .sh:
# `package-check: …`), so a line in a log that several scripts write into names its author.
# ${BASH_SOURCE[-1]} is the script being run, not this file.
TOOL=${BASH_SOURCE[-1]##*/}
TOOL=${TOOL%.sh}

# What `die` puts before its message and the status it exits with. Each script keeps the style its
# callers know: `zrc: error: …` and 1 by default (zrc, package); package-check sets "FAILED: ";
# with-test-services and mdnslab "" and 2 (their documented status for "could not start"); the
# others "".
DIE_PREFIX="error: "
DIE_STATUS=1

say() { printf '%s: %s\n' "$TOOL" "$*" >&2; }
die() {
  say "$DIE_PREFIX$*"
  exit "$DIE_STATUS"
}

# ---------------------------------------------------------------------------------------------
# Signal mask

# Signal state inherited from the caller: some launchers (Foundation's Process on Linux, called
# from a thread that blocks signals) start a script with SIGTERM and most other signals blocked,
# and every process the script starts inherits that mask — a daemon or a test that SIGTERM cannot
# stop. Bash cannot change its own mask, so the script re-execs itself once through perl
# (perl-base is Essential in Debian) with an empty mask and SIGPIPE back at its default action.
# Call it first thing, with the script's arguments: reset_signal_mask "$@".
reset_signal_mask() {
  if [[ -n "${ZRC_SIGNALS_RESET:-}" ]]; then
    # This is the re-exec'd script: the mask is clear. Unset, so that a script it starts checks
    # its own mask again.
    unset ZRC_SIGNALS_RESET
    return 0
  fi
  local field value blocked=0
  while read -r field value; do
    if [[ "$field" == SigBlk: ]]; then blocked=$value; fi
  done </proc/$$/status
  [[ "$blocked" == *[1-9a-f]* ]] || return 0
  if command -v perl >/dev/null 2>&1; then
    export ZRC_SIGNALS_RESET=1
    # shellcheck disable=SC2016  # perl code: its $-variables are perl's, not the shell's
    exec perl -MPOSIX -e 'sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die "sigprocmask: $!\n";
      $SIG{PIPE} = "DEFAULT"; exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\n"' -- "$BASH" "${BASH_SOURCE[-1]}" "$@"
  fi
  say "started with blocked signals (SigBlk $blocked) and no perl to clear them; processes may need SIGKILL to stop"
}

# ---------------------------------------------------------------------------------------------
# Cleanup stack

# What a script must undo (a temporary directory, a mount, a half-built laboratory) is pushed with
# at_exit as soon as it exists, and runs when the script exits however it exits: its end, `die`,
# a failed command under `set -e`, or a signal that exit_on_signals turned into an exit. The last
# pushed runs first: what was made inside something (a mount in a temporary directory) goes
# before it. One EXIT trap runs them all, so a second cleanup never replaces the first, and each
# runs even when one before it failed. A cleanup reads the exit status in EXIT_STATUS and may
# change it (mdnslab reports every failed `up` as 2).
EXIT_CLEANUPS=()
EXIT_STATUS=0

at_exit() { # COMMAND [ARG...]: run at exit, arguments as given now
  local command
  printf -v command '%q ' "$@"
  EXIT_CLEANUPS+=("$command")
  trap run_exit_cleanups EXIT
}

run_exit_cleanups() {
  EXIT_STATUS=$?
  # A second signal while cleaning up ends the script rather than starting the cleanups again.
  trap - EXIT INT TERM HUP
  local i
  for ((i = ${#EXIT_CLEANUPS[@]} - 1; i >= 0; i--)); do
    eval "${EXIT_CLEANUPS[i]}" || true
  done
  EXIT_CLEANUPS=()
  exit "$EXIT_STATUS"
}

# Bash ends on SIGINT, SIGTERM or SIGHUP and still runs the EXIT trap, but with $? = 0: a script
# killed mid-way would report success. As `exit 128+N` the cleanups see a failure, and the caller
# the usual status of a death by that signal (130, 143, 129).
exit_on_signals() { # SIGNAL...
  local signal number
  for signal in "$@"; do
    number=$(kill -l "$signal") || die "exit_on_signals: no signal $signal"
    # shellcheck disable=SC2064  # the status is fixed now, on purpose
    trap "exit $((128 + number))" "$signal"
  done
}

# What was built is now meant to stay (a laboratory that came up): drop the pushed cleanups and
# give INT, TERM and HUP back their default action.
forget_exit_cleanups() {
  EXIT_CLEANUPS=()
  trap - EXIT INT TERM HUP
}

# ---------------------------------------------------------------------------------------------
# Processes

# True while PID runs. A zombie counts as gone: a daemon whose parent never reaps it (a process
# left in a namespace) is dead for every purpose here.
pid_alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ "${stat:0:1}" != Z ]]
}

# True while any of the PIDs runs.
any_pid_alive() { # PID...
  local pid
  for pid in "$@"; do pid_alive "$pid" && return 0; done
  return 1
}

# Stops processes: SIGTERM to all, up to GRACE tenths of a second for them to go, then SIGKILL to
# those left, and up to 2 s more for that to take. Quiet about processes already gone.
stop_pids() { # GRACE_TENTHS PID...
  local grace=$1 i pid survivors=()
  shift
  (($#)) || return 0
  kill -TERM "$@" 2>/dev/null || true
  for ((i = 0; i < grace; i++)); do
    any_pid_alive "$@" || return 0
    sleep 0.1
  done
  for pid in "$@"; do pid_alive "$pid" && survivors+=("$pid"); done
  ((${#survivors[@]})) || return 0
  kill -KILL "${survivors[@]}" 2>/dev/null || true
  for ((i = 0; i < 20; i++)); do
    any_pid_alive "${survivors[@]}" || return 0
    sleep 0.1
  done
}

# ---------------------------------------------------------------------------------------------
# Programs

# A program the script cannot do without, and the Debian package that has it.
require_tool() { # PROGRAM PACKAGE
  command -v "$1" >/dev/null 2>&1 || die "'$1' not found; it is part of the Debian package '$2' (Tools/install-deps.sh installs it)"
}

# The Swift toolchain: on PATH, or where the project's machines install it (/opt/swift/usr/bin,
# which a non-login shell does not have on PATH); then on PATH for everything the script runs.
use_swift_toolchain() { # PROGRAM (swift, swiftc)
  local program=$1
  command -v "$program" >/dev/null 2>&1 && return 0
  [[ -x "/opt/swift/usr/bin/$program" ]] ||
    die "no Swift toolchain found (looked on PATH and in /opt/swift); install Swift 6.1 or newer"
  export PATH=/opt/swift/usr/bin:$PATH
}

# ---------------------------------------------------------------------------------------------
# X display

# Seconds Xvfb gets to report its display number, and then to answer: generous, for a machine
# busy with a build or a test suite. Both are conditions waited for, never a sleep that guesses.
XVFB_STARTUP_SECONDS=30

# Starts a private Xvfb at GEOMETRY (WIDTHxHEIGHTxDEPTH) and waits until it answers; exports
# DISPLAY and XAUTHORITY for it and sets XVFB_PID. Its files go in DIR: xvfb.auth (the server's
# cookie), xauthority (the clients'), xvfb.display, xvfb.log. Dies, with the server's log, when it
# does not come up (and stops it).
#
# - Its own display number: -displayfd makes Xvfb pick a free one and write it when it listens,
#   so two servers started at once never race for the same number (and no lock file of a dead
#   server is taken for a live one).
# - Its own MIT-MAGIC-COOKIE-1: no other local user can read or drive the display. The server
#   accepts every cookie in its -auth file whatever display it names; the clients' file needs the
#   display number, known only once Xvfb has picked it.
# - -noreset: otherwise the server resets (root contents and properties wiped, a client
#   connecting meanwhile refused) whenever its last client disconnects — a test connecting right
#   after another one closed would fail at random, and a desktop would lose its background.
start_xvfb() { # DIR GEOMETRY
  local dir=$1 geometry=$2 cookie number deadline
  cookie=$(mcookie) || die "mcookie could not make an X authority cookie"
  (
    umask 077
    : >"$dir/xvfb.auth"
    : >"$dir/xauthority"
  )
  xauth -q -f "$dir/xvfb.auth" add :0 MIT-MAGIC-COOKIE-1 "$cookie" || die "xauth could not write $dir/xvfb.auth"
  : >"$dir/xvfb.display"
  Xvfb -displayfd 3 -auth "$dir/xvfb.auth" -nolisten tcp -noreset -screen 0 "$geometry" \
    3>"$dir/xvfb.display" </dev/null >"$dir/xvfb.log" 2>&1 &
  XVFB_PID=$!

  # A whole line: the number is written with its newline, and a half-written "1" of "12" is no
  # display number.
  deadline=$((SECONDS + XVFB_STARTUP_SECONDS))
  until read -r number <"$dir/xvfb.display" && [[ "$number" =~ ^[0-9]+$ ]]; do
    pid_alive "$XVFB_PID" || die "Xvfb exited during startup; its log: $(tr '\n' ' ' <"$dir/xvfb.log")"
    if ((SECONDS >= deadline)); then
      stop_pids 20 "$XVFB_PID"
      die "Xvfb did not report a display number within $XVFB_STARTUP_SECONDS s; its log: $(tr '\n' ' ' <"$dir/xvfb.log")"
    fi
    sleep 0.1
  done

  export DISPLAY=":$number" XAUTHORITY="$dir/xauthority"
  xauth -q -f "$XAUTHORITY" add "$DISPLAY" MIT-MAGIC-COOKIE-1 "$cookie" || die "xauth could not write $XAUTHORITY"
  deadline=$((SECONDS + XVFB_STARTUP_SECONDS))
  until xdpyinfo >/dev/null 2>&1; do
    pid_alive "$XVFB_PID" || die "Xvfb on $DISPLAY exited during startup; its log: $(tr '\n' ' ' <"$dir/xvfb.log")"
    if ((SECONDS >= deadline)); then
      stop_pids 20 "$XVFB_PID"
      die "Xvfb on $DISPLAY does not answer xdpyinfo after $XVFB_STARTUP_SECONDS s; its log: $(tr '\n' ' ' <"$dir/xvfb.log")"
    fi
    sleep 0.1
  done
}
