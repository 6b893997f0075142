#!/usr/bin/env bash
# A throwaway LAN for mDNS / DNS-SD (LAN discovery) tests, built from network namespaces:
#
#   - one bridge namespace (zrcmdns-ID-br) holding the bridge br0, multicast snooping off, so every
#     multicast frame (mDNS is 224.0.0.251:5353) reaches every node;
#   - nodes node0..nodeN, one network namespace each (zrcmdns-ID-nK), each linked to br0 by a veth
#     whose node end is eth0, address 10.60.0.(K+1)/24; node0 is meant as the scanning controller,
#     node1..nodeN as the hosts;
#   - in each node, a private mount namespace (held by a `sleep infinity`) in which /run is a fresh
#     tmpfs (the host's /run entries bound back in, except dbus, avahi-daemon and netns) and
#     /etc/avahi/services is empty, and in it a private D-Bus system bus (/run/dbus/system_bus_socket)
#     and an avahi-daemon (host name zrcmdns-ID-nK, only eth0, IPv4 only unless --ipv6).
#
# `up` returns only when every avahi-daemon has its name org.freedesktop.Avahi on its bus and reports
# the server state RUNNING (its host name is established). On failure it removes what it built.
#
# Usage:
#   Tools/mdnslab.sh up   --id ID --hosts N [--ipv6] [--keep-on-failure]
#   Tools/mdnslab.sh exec --id ID NODE [--] COMMAND [ARG...]
#   Tools/mdnslab.sh info --id ID
#   Tools/mdnslab.sh down --id ID
#
#   ID     lower-case letters, digits and inner '-', at most 24 characters; names the lab.
#   N      1..100 hosts (node1..nodeN) besides the controller node0.
#   NODE   nodeK or K.
#
# `exec` runs COMMAND in the node's network and mount namespaces (nsenter into the holder process),
# in the caller's working directory and environment, with DBUS_SYSTEM_BUS_ADDRESS set to the node's
# bus, and ZRC_MDNSLAB_NODE / ZRC_MDNSLAB_ADDR / ZRC_MDNSLAB_HOSTNAME describing the node. Its exit
# status is COMMAND's. libavahi-client programs, avahi-browse and avahi-publish work unchanged in it.
# Each node's bus is also reachable from outside the node at /tmp/zrcmdns-ID/nK/bus.sock
# (DBUS_SYSTEM_BUS_ADDRESS=unix:path=...): an Avahi client there publishes and browses on the lab LAN,
# but the addresses it resolves are only reachable from inside the nodes.
#
# `down` stops every process in the lab's namespaces (TERM, then KILL after 5 s), deletes the
# namespaces and /tmp/zrcmdns-ID. It is idempotent and works after an interrupted `up`.
# `info` prints one line per node: NODE ADDRESS HOSTNAME NETNS HOLDER_PID.
#
# Needs root (namespaces, mounts, nsenter); `exec` runs COMMAND as root. Labs with different IDs are
# separate LANs (same addresses, no traffic between them) and can run at the same time.
#
# Exit status: 0 done; 2 bad usage or the lab could not be built / is not up; exec: COMMAND's status.
#
# Example:
#   Tools/mdnslab.sh up --id t1 --hosts 2
#   Tools/mdnslab.sh exec --id t1 node1 -- avahi-publish -s "ZRC test" _zrc._tcp 7420 v=1 &
#   Tools/mdnslab.sh exec --id t1 node0 -- avahi-browse -rtp _zrc._tcp
#   Tools/mdnslab.sh down --id t1
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# Signals blocked by the caller (Foundation's Process on Linux can start us with SIGTERM blocked)
# would be inherited by the daemons; re-exec with none blocked first. `down` falls back to
# SIGKILL anyway.
reset_signal_mask "$@"
# Bad usage, or a lab that could not be built or is not up: the reason, and status 2.
DIE_PREFIX=""
DIE_STATUS=2

SCRIPT_PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
readonly SCRIPT_PATH
readonly PREFIX=zrcmdns
readonly SUBNET_PREFIX=10.60.0
readonly MAX_HOSTS=100
readonly STARTUP_TIMEOUT_TENTHS=150 # 15 s for any one startup stage (all nodes together)
readonly SIGNAL_GRACE_TENTHS=50     # 5 s between SIGTERM and SIGKILL in `down`
readonly BUS_PATH=/run/dbus/system_bus_socket

usage() {
  sed -n '/^# Usage:/,/^# Exit status:/p' "$SCRIPT_PATH" | sed '$d' | sed 's/^# \{0,1\}//'
}

# ---------------------------------------------------------------------------------------------
# Names

ID=""
STATE=""
ns_bridge() { echo "$PREFIX-$ID-br"; }
ns_node() { echo "$PREFIX-$ID-n$1"; }
node_dir() { echo "$STATE/n$1"; }
node_addr() { echo "$SUBNET_PREFIX.$(($1 + 1))"; }
node_hostname() { echo "$PREFIX-$ID-n$1"; }

set_id() {
  [[ "$1" =~ ^[a-z0-9]([a-z0-9-]{0,22}[a-z0-9])?$ ]] ||
    die "bad --id '$1': lower-case letters, digits and inner '-', at most 24 characters"
  ID=$1
  STATE=/tmp/$PREFIX-$ID
}

# The lab's namespaces that exist now (exact names only: lab "a" must not match lab "a-b").
existing_namespaces() {
  local name rest
  ip netns list 2>/dev/null | while read -r name rest; do
    [[ "$name" =~ ^$PREFIX-$ID-(br|n[0-9]+)$ ]] && echo "$name"
  done
  return 0
}

# "PID STARTTIME" for a live process, so a recorded pid is only signalled if it is still the same process.
proc_identity() {
  local pid=$1 stat
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  stat=${stat##*) }            # fields after "pid (comm) "
  local fields
  read -r -a fields <<<"$stat" # field 3 (state) is now fields[0]; starttime (field 22) fields[19]
  echo "$pid ${fields[19]}"
}

record_pid() { # FILE PID: appends the process's identity to FILE (the list `down` stops)
  proc_identity "$2" >>"$1" || true
}

# ---------------------------------------------------------------------------------------------
# down

# Stops the lab's processes; returns 1 if there were none.
stop_all() {
  local -a pids=()
  local ns pid start line

  # Processes inside the namespaces (daemons, holders, and anything `exec` left running).
  for ns in $(existing_namespaces); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do pids+=("$pid"); done
  done
  # Recorded processes, in case their namespace is already gone (a half-finished `down`).
  if [[ -f "$STATE/pids" ]]; then
    while read -r pid start; do
      [[ -n "$pid" ]] || continue
      pid_alive "$pid" || continue
      line=$(proc_identity "$pid") || continue
      [[ "$line" == "$pid $start" ]] && pids+=("$pid")
    done <"$STATE/pids"
  fi
  ((${#pids[@]})) || return 1
  mapfile -t pids < <(printf '%s\n' "${pids[@]}" | sort -un)

  stop_pids "$SIGNAL_GRACE_TENTHS" "${pids[@]}"
  STOPPED=$((STOPPED + ${#pids[@]}))
}

cmd_down() {
  local ns removed=0 round
  STOPPED=0
  # Repeat: something may have forked between the listing and the signal.
  for ((round = 0; round < 3; round++)); do stop_all || break; done
  for ns in $(existing_namespaces); do
    ip netns delete "$ns" 2>/dev/null || ip netns delete "$ns" || true
    removed=$((removed + 1))
  done
  if [[ -d "$STATE" ]]; then
    # The private mounts live only in the nodes' mount namespaces, which died with their processes.
    # Never remove the directory while anything is mounted beneath it in ours (a bind of /run).
    if awk -v d="$STATE/" 'index($5 "/", d) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
      die "something is mounted under $STATE; not removing it (see /proc/self/mountinfo)"
    fi
    rm -rf --one-file-system -- "$STATE"
  fi
  [[ -z "$(existing_namespaces)" ]] || die "namespaces left: $(existing_namespaces | tr '\n' ' ')"
  echo "mdnslab: down $ID (stopped $STOPPED processes, deleted $removed namespaces)"
}

# ---------------------------------------------------------------------------------------------
# up

# Runs in each node: `ip netns exec NS unshare --mount --propagation private sh -c NODE_SETUP sh DIR`.
# Makes /run private (host entries bound back, except dbus, avahi-daemon and netns), empties
# /etc/avahi/services, writes DIR/holder.pid, then holds the namespaces open.
# shellcheck disable=SC2016
readonly NODE_SETUP='
set -eu
d=$1
# -n everywhere: libmount would otherwise create /run/mount/utab (on the host /run, before the tmpfs).
# Drop our copies of the host named network namespaces: they would keep other labs namespaces alive.
for m in $(awk '"'"'$5 ~ "^/run/netns(/|$)" { print $5 }'"'"' /proc/self/mountinfo | sort -r); do
  umount -n -l "$m" 2>/dev/null || true
done
mount -n -t tmpfs -o mode=0700,size=1m zrcmdns-stage "$d/stage"
mkdir "$d/stage/host"
mount -n --rbind /run "$d/stage/host"
mount -n -t tmpfs -o mode=0755,size=16m zrcmdns-run /run
for e in "$d/stage/host"/* "$d/stage/host"/.[!.]*; do
  [ -e "$e" ] || [ -L "$e" ] || continue
  n=${e##*/}
  case $n in dbus|avahi-daemon|netns) continue ;; esac
  [ -e "/run/$n" ] || [ -L "/run/$n" ] && continue
  if [ -L "$e" ]; then cp -P "$e" "/run/$n"
  elif [ -d "$e" ]; then mkdir "/run/$n"; mount -n --rbind "$e" "/run/$n"
  else : >"/run/$n"; mount -n --bind "$e" "/run/$n"
  fi
done
mkdir -m 0755 /run/dbus /run/avahi-daemon
umount -n -l "$d/stage"
# No static services (the host ones would be published by every node); avahi copes without the directory.
if [ -d /etc/avahi/services ]; then mount -n -t tmpfs -o mode=0755,size=1m zrcmdns-services /etc/avahi/services; fi
echo $$ >"$d/holder.pid.tmp"
mv "$d/holder.pid.tmp" "$d/holder.pid"
exec sleep infinity
'

write_dbus_config() { # K
  local d
  d=$(node_dir "$1")
  cat >"$d/dbus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$BUS_PATH</listen>
  <listen>unix:path=$d/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
EOF
}

write_avahi_config() { # K
  local d ipv6=no
  d=$(node_dir "$1")
  ((USE_IPV6)) && ipv6=yes
  cat >"$d/avahi-daemon.conf" <<EOF
[server]
host-name=$(node_hostname "$1")
domain-name=local
use-ipv4=yes
use-ipv6=$ipv6
allow-interfaces=eth0
enable-dbus=yes
disallow-other-stacks=no
ratelimit-interval-usec=1000000
ratelimit-burst=1000

[wide-area]
enable-wide-area=no

[publish]
publish-hinfo=no
publish-workstation=no
publish-addresses=yes
publish-aaaa-on-ipv4=no
publish-a-on-ipv6=no

[reflector]
enable-reflector=no

[rlimits]
EOF
}

# nsenter into node K's holder: network + mount namespaces.
in_node() { # K COMMAND...
  local k=$1
  shift
  DBUS_SYSTEM_BUS_ADDRESS="unix:path=$BUS_PATH" nsenter --target "${HOLDER[$k]}" --mount --net -- "$@"
}

bus_query() { # K: succeeds once org.freedesktop.Avahi has an owner and the server state is RUNNING
  local out
  out=$(in_node "$1" dbus-send --system --print-reply=literal --reply-timeout=1000 --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Avahi 2>/dev/null) || return 1
  [[ "$out" == *true* ]] || return 1
  out=$(in_node "$1" dbus-send --system --print-reply=literal --reply-timeout=1000 --dest=org.freedesktop.Avahi \
    / org.freedesktop.Avahi.Server.GetState 2>/dev/null) || return 1
  [[ "$out" == *"int32 2"* ]] # AVAHI_SERVER_RUNNING
}

# Waits (bounded) until CHECK K returns 0 for every node; CHECK returns 1 for "not yet" and 2 for
# "its process died". On failure names the stage and shows the node's LOG.
wait_all() { # STAGE CHECK LOGNAME
  local stage=$1 check=$2 log=$3 i k rc
  local -a pending=() failed=()
  for ((k = 0; k <= HOSTS; k++)); do pending+=("$k"); done
  for ((i = 0; i < STARTUP_TIMEOUT_TENTHS && ${#pending[@]} > 0; i++)); do
    local -a still=()
    for k in "${pending[@]}"; do
      rc=0
      "$check" "$k" || rc=$?
      if ((rc == 1)); then still+=("$k"); elif ((rc != 0)); then failed+=("$k"); fi
    done
    pending=("${still[@]+"${still[@]}"}")
    ((${#failed[@]})) && break
    ((${#pending[@]})) && sleep 0.1
  done
  for k in "${failed[@]+"${failed[@]}"}"; do
    say "node$k: $stage exited; $(node_dir "$k")/$log:"
    tail -n 20 "$(node_dir "$k")/$log" >&2 2>/dev/null || true
  done
  local why="not ready after $((STARTUP_TIMEOUT_TENTHS / 10)) s"
  ((${#failed[@]})) && why="not ready yet when another node failed"
  for k in "${pending[@]+"${pending[@]}"}"; do
    say "node$k: $stage $why; $(node_dir "$k")/$log:"
    tail -n 20 "$(node_dir "$k")/$log" >&2 2>/dev/null || true
  done
  ((${#failed[@]} == 0 && ${#pending[@]} == 0))
}

holder_ready() {
  local d pid
  d=$(node_dir "$1")
  if [[ ! -s "$d/holder.pid" ]]; then
    pid_alive "${LAUNCHED[$1]}" || return 2
    return 1
  fi
  pid=$(<"$d/holder.pid")
  [[ "$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null)" == "$(stat -L -c %i "/run/netns/$(ns_node "$1")")" ]] || return 2
  HOLDER[$1]=$pid
  record_pid "$STATE/pids" "$pid"
}

dbus_ready() {
  pid_alive "${LAUNCHED[$1]}" || return 2
  in_node "$1" dbus-send --system --print-reply --reply-timeout=1000 --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.GetId >/dev/null 2>&1 || return 1
}

avahi_ready() {
  pid_alive "${LAUNCHED[$1]}" || return 2
  bus_query "$1" || return 1
}

# Run from the cleanup stack when `up` exits: a failed `up` removes what it built (unless
# --keep-on-failure) and reports status 2, whatever the failure was.
# shellcheck disable=SC2317  # run from the cleanup stack (at_exit), where shellcheck sees no call
up_failed() {
  ((EXIT_STATUS != 0)) || return 0
  if ((KEEP_ON_FAILURE)); then
    say "up failed; --keep-on-failure: left as is, logs in $STATE; run down --id $ID"
  else
    say "up failed; removing what was built"
    cmd_down >/dev/null 2>&1 || cmd_down >&2 || true
  fi
  EXIT_STATUS=2
}

cmd_up() {
  local k br d drop_root=()
  require_tool ip iproute2
  require_tool unshare util-linux
  require_tool nsenter util-linux
  require_tool dbus-daemon dbus-daemon
  require_tool dbus-send dbus-bin
  require_tool avahi-daemon avahi-daemon
  [[ $EUID -eq 0 ]] || die "up needs root (network namespaces, mounts)"
  id avahi >/dev/null 2>&1 || drop_root=(--no-drop-root)

  [[ -z "$(existing_namespaces)" && ! -e "$STATE" ]] ||
    die "lab $ID exists (namespaces or $STATE); run: $SCRIPT_PATH down --id $ID"
  mkdir -m 0755 "$STATE" # fails if it exists (never reuse a directory someone else made in /tmp)
  at_exit up_failed
  exit_on_signals INT TERM HUP
  echo "$HOSTS" >"$STATE/hosts"
  : >"$STATE/pids"

  br=$(ns_bridge)
  ip netns add "$br"
  ip -n "$br" link set lo up
  ip -n "$br" link add br0 type bridge mcast_snooping 0 stp_state 0 forward_delay 0
  ip netns exec "$br" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$br" link set br0 up

  for ((k = 0; k <= HOSTS; k++)); do
    local ns
    ns=$(ns_node "$k")
    d=$(node_dir "$k")
    mkdir -p "$d/stage"
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    if ! ((USE_IPV6)); then
      ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    fi
    ip -n "$br" link add "v$k" type veth peer name eth0 netns "$ns"
    ip -n "$br" link set "v$k" master br0 up
    ip -n "$ns" addr add "$(node_addr "$k")/24" dev eth0
    ip -n "$ns" link set eth0 up
    write_dbus_config "$k"
    write_avahi_config "$k"
    setsid ip netns exec "$ns" unshare --mount --propagation private -- sh -c "$NODE_SETUP" sh "$d" \
      </dev/null >"$d/holder.log" 2>&1 &
    LAUNCHED[k]=$!
  done
  wait_all "namespace holder" holder_ready holder.log

  for ((k = 0; k <= HOSTS; k++)); do
    d=$(node_dir "$k")
    # Not a pgrp leader, so setsid and nsenter exec without forking: $! is the daemon itself.
    setsid nsenter --target "${HOLDER[$k]}" --mount --net -- \
      dbus-daemon --config-file="$d/dbus.conf" --nofork --nopidfile </dev/null >"$d/dbus.log" 2>&1 &
    LAUNCHED[k]=$!
    record_pid "$STATE/pids" $!
  done
  wait_all "D-Bus system bus" dbus_ready dbus.log

  for ((k = 0; k <= HOSTS; k++)); do
    d=$(node_dir "$k")
    setsid nsenter --target "${HOLDER[$k]}" --mount --net -- \
      avahi-daemon -f "$d/avahi-daemon.conf" --no-rlimits --no-chroot "${drop_root[@]+"${drop_root[@]}"}" \
      </dev/null >"$d/avahi.log" 2>&1 &
    LAUNCHED[k]=$!
    record_pid "$STATE/pids" $!
  done
  wait_all "avahi-daemon (org.freedesktop.Avahi, state RUNNING)" avahi_ready avahi.log

  : >"$STATE/nodes"
  for ((k = 0; k <= HOSTS; k++)); do
    printf 'node%s %s %s.local %s %s\n' "$k" "$(node_addr "$k")" "$(node_hostname "$k")" "$(ns_node "$k")" \
      "${HOLDER[$k]}" >>"$STATE/nodes"
  done
  forget_exit_cleanups
  echo "mdnslab: up $ID: node0 (controller) and $HOSTS hosts on $SUBNET_PREFIX.0/24"
  cat "$STATE/nodes"
}

# ---------------------------------------------------------------------------------------------
# exec / info

cmd_exec() { # NODE COMMAND...
  local node=$1 k pid addr host ns
  shift
  [[ "$node" =~ ^(node)?([0-9]+)$ ]] || die "bad node '$node' (nodeK or K)"
  k=$((10#${BASH_REMATCH[2]}))
  [[ -s "$STATE/nodes" ]] || die "lab $ID is not up"
  read -r _ addr host ns pid < <(grep "^node$k " "$STATE/nodes") || die "lab $ID has no node$k"
  [[ -e "/run/netns/$ns" && "$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null)" == "$(stat -L -c %i "/run/netns/$ns")" ]] ||
    die "node$k of lab $ID is not running (holder $pid gone)"
  export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$BUS_PATH"
  export ZRC_MDNSLAB_NODE="node$k" ZRC_MDNSLAB_ADDR="$addr" ZRC_MDNSLAB_HOSTNAME="$host"
  # Entering a mount namespace moves the working directory to its root: go back to ours.
  # shellcheck disable=SC2016  # $1 and $@ are the inner sh's own, expanded there
  exec nsenter --target "$pid" --mount --net -- \
    sh -c 'cd -- "$1" 2>/dev/null || cd /; shift; exec "$@"' sh "$PWD" "$@"
}

cmd_info() {
  [[ -s "$STATE/nodes" ]] || die "lab $ID is not up"
  cat "$STATE/nodes"
}

# ---------------------------------------------------------------------------------------------

main() {
  local cmd=${1:-}
  [[ -n "$cmd" ]] || { usage >&2; exit 2; }
  shift
  case $cmd in -h | --help | help) usage; exit 0 ;; up | down | exec | info) ;; *) usage >&2; exit 2 ;; esac

  HOSTS=""
  USE_IPV6=0
  KEEP_ON_FAILURE=0
  local id=""
  while (($#)); do
    case $1 in
      --id) [[ $# -ge 2 ]] || die "--id needs a value"; id=$2; shift 2 ;;
      --id=*) id=${1#--id=}; shift ;;
      --hosts) [[ $# -ge 2 ]] || die "--hosts needs a value"; HOSTS=$2; shift 2 ;;
      --hosts=*) HOSTS=${1#--hosts=}; shift ;;
      --ipv6) USE_IPV6=1; shift ;;
      --keep-on-failure) KEEP_ON_FAILURE=1; shift ;;
      --) shift; break ;;
      -*) die "unknown option '$1'" ;;
      *) break ;;
    esac
  done
  [[ -n "$id" ]] || die "--id is required"
  set_id "$id"
  declare -ga HOLDER=() LAUNCHED=()

  case $cmd in
    up)
      (($# == 0)) || die "up takes no arguments"
      if [[ ! "$HOSTS" =~ ^[0-9]+$ ]] || ((10#$HOSTS < 1 || 10#$HOSTS > MAX_HOSTS)); then
        die "--hosts must be 1..$MAX_HOSTS"
      fi
      HOSTS=$((10#$HOSTS))
      cmd_up
      ;;
    down) (($# == 0)) || die "down takes no arguments"; cmd_down ;;
    info) (($# == 0)) || die "info takes no arguments"; cmd_info ;;
    exec)
      (($# >= 1)) || die "exec needs NODE and COMMAND"
      local node=$1
      shift
      [[ "${1:-}" == -- ]] && shift
      (($# >= 1)) || die "exec needs a COMMAND"
      cmd_exec "$node" "$@"
      ;;
  esac
}

main "$@"
