#!/usr/bin/env bash
# Builds and tears down a NAT laboratory on this machine out of network namespaces, for the
# rendezvous/relay tests and benchmarks. Needs root, iproute2, iptables, coturn, mosquitto(-clients).
#
#   zrcnat-ID-wan   "internet": bridge br0 with 100.64.0.1 (+ .2 for RFC 5780 alternate address),
#                   coturn on 100.64.0.1:3478 udp+tcp (alternate 100.64.0.2:3479), mosquitto on :1883
#   zrcnat-ID-hnat  NAT router, outside wan0 100.64.0.11 on br0, inside lan0 10.1.0.1
#   zrcnat-ID-host  the ZRC host, eth0 10.1.0.2, default via the hnat
#   zrcnat-ID-cnat  NAT router, outside wan0 100.64.0.12 on br0, inside lan0 10.2.0.1
#   zrcnat-ID-ctl   the controller, eth0 10.2.0.2, default via the cnat
#   with --lan (or lan-up): a direct link host eth1 10.9.0.1/24 <-> ctl eth1 10.9.0.2/24
# Only private/CGNAT ranges are used. All interfaces are created inside the namespaces, so their
# names are short and fixed and several labs (different IDs) can exist at once.
#
# Usage: Tools/natlab.sh up --id ID [--nat cone|symmetric] [--lan] [--acl FILE] [--rate MBIT]
#          prints KEY=VALUE lines (also kept in /tmp/zrcnat-ID/env); fails (and cleans up) if
#          anything did not come up
#        Tools/natlab.sh down --id ID          removes everything of ID; idempotent
#        Tools/natlab.sh check --id ID         self-test; exit 0 when every check passed
#        Tools/natlab.sh env --id ID           prints the env lines again
#        Tools/natlab.sh lan-up|lan-down --id ID
#        Tools/natlab.sh stop-broker|start-broker|restart-broker --id ID
# Example: eval "$(Tools/natlab.sh up --id t1 --nat symmetric)"; ip netns exec "$ZRC_NAT_HOST_NS" ...
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# A caller such as Foundation's Process may start us with signals blocked; the daemons would
# inherit that mask and ignore SIGTERM. Re-exec with none blocked first.
reset_signal_mask "$@"
DIE_PREFIX=""

readonly WAN_ADDR=100.64.0.1 WAN_ALT_ADDR=100.64.0.2 HNAT_OUT=100.64.0.11 CNAT_OUT=100.64.0.12
readonly HNAT_IN=10.1.0.1 HOST_ADDR=10.1.0.2 CNAT_IN=10.2.0.1 CTL_ADDR=10.2.0.2
readonly HOST_LAN_ADDR=10.9.0.1 CTL_LAN_ADDR=10.9.0.2
readonly TURN_PORT=3478 TURN_ALT_PORT=3479 TURN_REST_PORT=3480 BROKER_PORT=1883
readonly TURN_USER=zrc TURN_PASSWORD=zrcpass TURN_REALM=zrc.test TURN_SECRET=zrcsecret

usage() { sed -n '/^# Usage:/,/^# Example:/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

cmd=${1:-}; [[ -n "$cmd" ]] || usage; shift
ID="" NAT=cone LAN=0 ACL="" RATE=""
while (($#)); do
  case "$1" in
    --id) ID=${2:-}; shift 2 || usage ;;
    --nat) NAT=${2:-}; shift 2 || usage ;;
    --lan) LAN=1; shift ;;
    --acl) ACL=${2:-}; shift 2 || usage ;;
    --rate) RATE=${2:-}; shift 2 || usage ;;
    *) usage ;;
  esac
done
[[ "$ID" =~ ^[A-Za-z0-9_-]{1,40}$ ]] || die "--id must be 1-40 of [A-Za-z0-9_-]"
[[ "$NAT" == cone || "$NAT" == symmetric ]] || die "--nat must be cone or symmetric"
[[ -z "$RATE" || "$RATE" =~ ^[1-9][0-9]{0,4}$ ]] || die "--rate is whole Mbit/s, 1-99999"
((EUID == 0)) || die "must run as root"

readonly WAN=zrcnat-$ID-wan HNAT=zrcnat-$ID-hnat CNAT=zrcnat-$ID-cnat HOST=zrcnat-$ID-host CTL=zrcnat-$ID-ctl
readonly ALL_NS=("$WAN" "$HNAT" "$CNAT" "$HOST" "$CTL")
readonly STATE=/tmp/zrcnat-$ID

nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
ns_exists() { [[ -e /run/netns/$1 ]]; }

# Daemons and leftovers get 3 s between SIGTERM and SIGKILL (stop_pids).
readonly STOP_GRACE_TENTHS=30

# The pid in STATE/NAME.pid if that process lives in our WAN namespace (so not a reused pid; just
# after start_daemon it may not be there yet).
daemon_pid() {
  local pid
  pid=$(cat "$STATE/$1.pid" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ && "$(ip netns identify "$pid" 2>/dev/null)" == "$WAN" ]] && echo "$pid"
}

# Starts a daemon in the foreground of its own session inside ns WAN, with no fd of ours (a caller
# reading our stdout must see EOF). setsid and ip netns exec both exec, so $! is the daemon's pid.
# SIGPIPE, ignored by "up", is set back to default for the daemon.
start_daemon() { # name, command...
  local name=$1; shift
  (trap - PIPE; exec setsid ip netns exec "$WAN" "$@" </dev/null >>"$STATE/$name.out" 2>&1) &
  echo $! >"$STATE/$name.pid"
}

# Waits (bounded, 10 s) until ss in WAN lists every "proto addr:port" given; dies naming the missing.
wait_listening() { # name, "proto addr:port"...
  local name=$1 i want missing; shift
  for ((i = 0; i < 100; i++)); do
    kill -0 "$(cat "$STATE/$name.pid")" 2>/dev/null || break
    missing=""
    for want in "$@"; do
      nsx "$WAN" ss -Hln --"${want%% *}" | awk '{print $4}' | grep -qxF "${want#* }" || missing+=" $want"
    done
    [[ -z "$missing" ]] && return 0
    sleep 0.1
  done
  local how="did not start listening within 10 s on"
  kill -0 "$(cat "$STATE/$name.pid")" 2>/dev/null || how="exited before listening on"
  echo "natlab: $name $how${missing:- its ports}; last lines of its log:" >&2
  tail -n 15 "$STATE/$name.log" "$STATE/$name.out" >&2 2>/dev/null || true
  exit 1
}

# coturn config common to both instances: name, then instance-specific lines on stdin.
# allowed-peer-ip: peers are relays and the NATs' outside addresses in 100.64.0.0/24; allowed
# explicitly, as packaged configs often deny private and CGNAT ranges.
write_turn_conf() {
  { cat; cat <<EOF; } >"$STATE/$1.conf"
realm=$TURN_REALM
fingerprint
no-tls
no-dtls
no-cli
no-multicast-peers
allowed-peer-ip=100.64.0.0-100.64.0.255
relay-ip=$WAN_ADDR
userdb=$STATE/$1.db
log-file=$STATE/$1.log
simple-log
no-stdout-log
pidfile=$STATE/$1.daemon.pid
EOF
}

start_turn() {
  # Main instance, static user. Two listening IPs turn on RFC 5780 (NAT behaviour discovery):
  # CHANGE-REQUEST is answered from the other IP and from alt-listening-port.
  write_turn_conf turnserver <<EOF
listening-ip=$WAN_ADDR
listening-ip=$WAN_ALT_ADDR
listening-port=$TURN_PORT
alt-listening-port=$TURN_ALT_PORT
min-port=49152
max-port=65535
lt-cred-mech
user=$TURN_USER:$TURN_PASSWORD
EOF
  # TURN REST API (time-limited usernames signed with a shared secret) needs its own instance:
  # with use-auth-secret, coturn ignores static "user=" entries ("Cannot find credentials").
  write_turn_conf turnrest <<EOF
listening-ip=$WAN_ADDR
listening-port=$TURN_REST_PORT
no-rfc5780
min-port=40000
max-port=49151
use-auth-secret
static-auth-secret=$TURN_SECRET
EOF
  start_daemon turnserver turnserver -c "$STATE/turnserver.conf"
  start_daemon turnrest turnserver -c "$STATE/turnrest.conf"
  wait_listening turnserver "udp $WAN_ADDR:$TURN_PORT" "tcp $WAN_ADDR:$TURN_PORT" "udp $WAN_ALT_ADDR:$TURN_ALT_PORT"
  wait_listening turnrest "udp $WAN_ADDR:$TURN_REST_PORT" "tcp $WAN_ADDR:$TURN_REST_PORT"
}

start_broker() {
  start_daemon mosquitto mosquitto -c "$STATE/mosquitto.conf"
  wait_listening mosquitto "tcp $WAN_ADDR:$BROKER_PORT"
}
stop_broker() { local pid; if pid=$(daemon_pid mosquitto); then stop_pids "$STOP_GRACE_TENTHS" "$pid"; fi; rm -f "$STATE/mosquitto.pid"; }

write_broker_conf() {
  # user root: mosquitto would otherwise drop to user "mosquitto", who cannot write the state dir.
  # Persistence is on (as in Debian's default config) so retained messages survive restart-broker.
  mkdir -p "$STATE/mosquitto-db"
  cat >"$STATE/mosquitto.conf" <<EOF
per_listener_settings false
listener $BROKER_PORT $WAN_ADDR
allow_anonymous true
acl_file $STATE/mosquitto.acl
persistence true
persistence_location $STATE/mosquitto-db/
log_dest file $STATE/mosquitto.log
log_type error
log_type warning
log_type notice
log_type information
connection_messages true
user root
EOF
  if [[ -n "$ACL" ]]; then
    cp "$ACL" "$STATE/mosquitto.acl"
  else
    # Mosquitto 2.0: "topic" lines before any "user" line apply only to clients without a username;
    # "pattern" lines apply to everyone. Subscriptions are always granted; reading is checked per
    # delivered message.
    printf '%s\n' 'topic readwrite zrc/v1/#' 'pattern readwrite zrc/v1/#' >"$STATE/mosquitto.acl"
  fi
}

# A veth pair with one end in each namespace, created there directly (never in the caller's ns).
veth() { ip -n "$1" link add "$2" type veth peer name "$4" netns "$3"; }

nat_router() { # ns, outside port name in WAN, outside addr, inside addr, client ns, client addr
  local ns=$1 port=$2 out=$3 in=$4 client=$5 caddr=$6
  veth "$ns" wan0 "$WAN" "$port"
  ip -n "$WAN" link set "$port" master br0 up
  ip -n "$ns" addr add "$out/24" dev wan0
  ip -n "$ns" link set wan0 up
  ip -n "$ns" route add default via "$WAN_ADDR"
  veth "$ns" lan0 "$client" eth0
  ip -n "$ns" addr add "$in/24" dev lan0
  ip -n "$ns" link set lan0 up
  ip -n "$client" addr add "$caddr/24" dev eth0
  ip -n "$client" link set eth0 up
  ip -n "$client" route add default via "$in"
  nsx "$ns" sysctl -qw net.ipv4.ip_forward=1
  # Plain MASQUERADE keeps the source port when it is free: the same inside ip:port gets the same
  # outside port whatever the destination (endpoint-independent mapping, i.e. "cone" for STUN).
  # --random-fully picks a new random port per connection: address-and-port-dependent ("symmetric").
  local masq=(-j MASQUERADE); [[ "$NAT" == symmetric ]] && masq+=(--random-fully)
  nsx "$ns" iptables -w -t nat -A POSTROUTING -o wan0 "${masq[@]}"
  # Drop unsolicited packets arriving outside. Without this a probe to the NAT's address creates a
  # conntrack entry (answered by ICMP unreachable) that takes the port a later mapping would have
  # kept, so the mapping changes and even the cone NAT looks symmetric. Filtering becomes
  # address-and-port dependent (a "port-restricted cone"), like a home router.
  nsx "$ns" iptables -w -A INPUT -i wan0 -m conntrack --ctstate NEW,INVALID -j DROP
  nsx "$ns" iptables -w -A FORWARD -i wan0 -m conntrack --ctstate NEW,INVALID -j DROP
}

# The host's access link limited to MBIT each way (tbf on both of its NAT's interfaces, a queue of
# 100 ms at that rate, as a DSL router's buffer): the paths through it see a real bottleneck.
shape_host_link() {
  local bytes=$(($1 * 125000)) dev
  local burst=$((bytes / 125 > 32768 ? bytes / 125 : 32768)) limit=$((bytes / 10 > 65536 ? bytes / 10 : 65536))
  for dev in wan0 lan0; do
    # Offloads would hand tbf 64 KiB super-packets; best effort.
    nsx "$HNAT" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1 || true
    nsx "$HNAT" tc qdisc add dev "$dev" root tbf rate "${1}mbit" burst "$burst" limit "$limit"
  done
}

lan_up() {
  if ! ip -n "$HOST" link show eth1 >/dev/null 2>&1; then
    veth "$HOST" eth1 "$CTL" eth1
    ip -n "$HOST" addr add "$HOST_LAN_ADDR/24" dev eth1
    ip -n "$CTL" addr add "$CTL_LAN_ADDR/24" dev eth1
  fi
  ip -n "$HOST" link set eth1 up
  ip -n "$CTL" link set eth1 up
}
# Down, not deleted: the connected route goes, so 10.9.0.x is then only "reachable" via the NATs
# (where it is dropped); lan-up brings the same link back.
lan_down() { ip -n "$HOST" link set eth1 down 2>/dev/null || true; ip -n "$CTL" link set eth1 down 2>/dev/null || true; }

print_env() {
  local lan=0
  [[ "$(ip -n "$HOST" -br link show eth1 2>/dev/null | awk '{print $2}')" == UP ]] && lan=1
  sed '/^ZRC_NAT_LAN=/d' "$STATE/env"
  echo "ZRC_NAT_LAN=$lan"
}

# Removes a lab whose `up` failed (run from the cleanup stack at exit).
# shellcheck disable=SC2317  # run from the cleanup stack (at_exit), where shellcheck sees no call
up_failed() {
  ((EXIT_STATUS != 0)) || return 0
  cmd_down >/dev/null 2>&1 || true
  say "up failed; removed lab $ID" || true
}

cmd_up() {
  local ns
  for ns in "${ALL_NS[@]}"; do
    if [[ -e "$STATE" ]] || ns_exists "$ns"; then die "lab $ID already exists (state $STATE); run: $0 down --id $ID"; fi
  done
  for tool in ip iptables ss turnserver mosquitto turnutils_stunclient mosquitto_pub; do
    command -v "$tool" >/dev/null || die "'$tool' not found (packages iproute2 iptables coturn mosquitto mosquitto-clients)"
  done
  [[ -z "$ACL" || -r "$ACL" ]] || die "cannot read ACL file $ACL"
  mkdir -p "$STATE"
  # Any failure from here on (also INT/TERM, or a caller that closed our stdout/stderr: SIGPIPE is
  # ignored so that a write fails instead of killing us unseen) removes whatever was built.
  trap '' PIPE
  trap 'exit 1' INT TERM HUP
  at_exit up_failed
  for ns in "${ALL_NS[@]}"; do
    ip netns add "$ns"
    # IPv4 only (new interfaces inherit "default"); lo keeps ::1 so "localhost" still works.
    nsx "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
    ip -n "$ns" link set lo up
  done
  ip -n "$WAN" link add br0 type bridge
  ip -n "$WAN" addr add "$WAN_ADDR/24" dev br0
  ip -n "$WAN" addr add "$WAN_ALT_ADDR/24" dev br0
  ip -n "$WAN" link set br0 up
  # coturn needs a default route: without one, sends hit ENETUNREACH and it closes the allocation.
  # The default route leads into a veth pair whose far end drops everything (the WAN does not
  # forward); a permanent neighbour entry for the unassigned gateway avoids ARP failures (no dummy
  # interfaces on this kernel). So traffic to unknown addresses vanishes silently, as on the internet.
  ip -n "$WAN" link add void0 type veth peer name void1
  ip -n "$WAN" link set void0 up
  ip -n "$WAN" link set void1 up
  ip -n "$WAN" addr add 10.255.255.1/30 dev void0
  ip -n "$WAN" neigh replace 10.255.255.2 dev void0 nud permanent \
    lladdr "$(ip -n "$WAN" -br link show void1 | awk '{print $3}')"
  ip -n "$WAN" route add default via 10.255.255.2 dev void0
  nat_router "$HNAT" h-wan "$HNAT_OUT" "$HNAT_IN" "$HOST" "$HOST_ADDR"
  nat_router "$CNAT" c-wan "$CNAT_OUT" "$CNAT_IN" "$CTL" "$CTL_ADDR"
  [[ -n "$RATE" ]] && shape_host_link "$RATE"
  ((LAN)) && lan_up
  write_broker_conf
  start_turn
  start_broker
  cat >"$STATE/env" <<EOF
ZRC_NAT_ID=$ID
ZRC_NAT_MODE=$NAT
ZRC_NAT_STATE_DIR=$STATE
ZRC_NAT_WAN_NS=$WAN
ZRC_NAT_HOST_NAT_NS=$HNAT
ZRC_NAT_CTL_NAT_NS=$CNAT
ZRC_NAT_HOST_NS=$HOST
ZRC_NAT_CTL_NS=$CTL
ZRC_NAT_BRIDGE=br0
ZRC_NAT_WAN_ADDR=$WAN_ADDR
ZRC_NAT_WAN_ALT_ADDR=$WAN_ALT_ADDR
ZRC_NAT_HOST_ADDR=$HOST_ADDR
ZRC_NAT_CTL_ADDR=$CTL_ADDR
ZRC_NAT_HOST_PUBLIC_ADDR=$HNAT_OUT
ZRC_NAT_CTL_PUBLIC_ADDR=$CNAT_OUT
ZRC_NAT_HOST_LAN_ADDR=$HOST_LAN_ADDR
ZRC_NAT_CTL_LAN_ADDR=$CTL_LAN_ADDR
ZRC_NAT_TURN=$WAN_ADDR:$TURN_PORT
ZRC_NAT_TURN_ALT=$WAN_ALT_ADDR:$TURN_ALT_PORT
ZRC_NAT_TURN_REALM=$TURN_REALM
ZRC_NAT_TURN_USER=$TURN_USER
ZRC_NAT_TURN_PASSWORD=$TURN_PASSWORD
ZRC_NAT_TURN_REST=$WAN_ADDR:$TURN_REST_PORT
ZRC_NAT_TURN_SECRET=$TURN_SECRET
ZRC_NAT_TURN_LOG=$STATE/turnserver.log
ZRC_NAT_BROKER=$WAN_ADDR:$BROKER_PORT
ZRC_NAT_BROKER_LOG=$STATE/mosquitto.log
EOF
  print_env
}

# Removes everything of ID, whatever state it is in. Processes still inside the lab's namespaces
# (daemons, leftovers of tests) are stopped too, except this script and its ancestors.
cmd_down() {
  local ns pid f pids=() keep=" " p=$$
  for ((f = 0; f < 64 && p > 1; f++)); do keep+="$p "; p=$(awk '/^PPid:/{print $2}' "/proc/$p/status" 2>/dev/null || echo 1); done
  for ns in "${ALL_NS[@]}"; do
    ns_exists "$ns" || continue
    for pid in $(ip netns pids "$ns" 2>/dev/null); do [[ "$keep" == *" $pid "* ]] || pids+=("$pid"); done
  done
  ((${#pids[@]} == 0)) || stop_pids "$STOP_GRACE_TENTHS" "${pids[@]}"
  for ns in "${ALL_NS[@]}"; do if ns_exists "$ns"; then ip netns del "$ns" 2>/dev/null || true; fi; done
  rm -rf "$STATE"
  for ns in "${ALL_NS[@]}"; do if ns_exists "$ns"; then die "namespace $ns still exists"; fi; done
  return 0
}

# ---- check ---------------------------------------------------------------------------------
# Every result is one PASS or FAIL line; the checks of host and ctl run in parallel.
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
expect() { local what=$1; shift; if "$@" >/dev/null 2>&1; then pass "$what"; else fail "$what"; fi; }
expect_not() { local what=$1; shift; if "$@" >/dev/null 2>&1; then fail "$what"; else pass "$what"; fi; }
# The reflexive (mapped) addresses in turnutils output, in order.
reflexive() { grep -oE 'UDP reflexive addr: *[0-9.]+:[0-9]+' | grep -oE '[0-9.]+:[0-9]+$' || true; }

# One client, two allocations that send to each other through their relays (-y); passes when
# every packet came back.
relay_ok() { # ns, uclient options...
  local ns=$1; shift
  nsx "$ns" timeout 20 turnutils_uclient -y -n 5 -m 1 "$@" "$WAN_ADDR" 2>&1 | grep -q 'Total lost packets 0 '
}

# UDP from local port P to peer:P every 0.1 s for 3 s; succeeds once a datagram from the peer came.
punch() { # ns, port, peer address
  nsx "$1" timeout 6 python3 -c '
import socket, sys, time
port, peer = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", port)); s.settimeout(0.1)
got, end = False, time.time() + 3
while time.time() < end:
    s.sendto(b"punch", (peer, port))
    try:
        got = got or s.recvfrom(100)[1][0] == peer
    except socket.timeout:
        pass
sys.exit(0 if got else 1)' "$2" "$3"
}

check_side() { # name, ns, its NAT's outside address, nat mode
  local name=$1 ns=$2 addr=$3 mode=$4 out m1 m2
  # turnutils_stunclient prints the mapping, then (RFC 5780 server) waits forever for an answer
  # to another port that the NAT filters: bound it and keep the first reflexive address.
  out=$(timeout 3 ip netns exec "$ns" turnutils_stunclient -p $TURN_PORT $WAN_ADDR 2>&1 || true)
  m1=$(reflexive <<<"$out" | head -1)
  if [[ "$m1" == "$addr":* ]]; then pass "$name STUN mapped address $m1"; else fail "$name STUN mapped address '${m1:-none}' (want $addr:*)"; fi
  # natdiscovery -m sends from one local port to WAN:3478, then ALT:3478 (and ALT:3479 if those
  # differ) - RFC 5780 4.3 - and names the mapping behaviour.
  out=$(timeout 20 ip netns exec "$ns" turnutils_natdiscovery -m -p $TURN_PORT $WAN_ADDR 2>&1 || true)
  m2=$(reflexive <<<"$out" | tr '\n' ' ')
  m1=$(grep -oE 'NAT with [A-Za-z ]*Mapping' <<<"$out" | tail -1 || true)
  echo "     $name: one local port; mapped as seen by $WAN_ADDR:$TURN_PORT, $WAN_ALT_ADDR:${TURN_PORT}[, $WAN_ALT_ADDR:$TURN_ALT_PORT]: $m2"
  if [[ $mode == cone && "$m1" == *"Endpoint Independent"* ]] || [[ $mode == symmetric && "$m1" == *"Dependent Mapping" ]]; then
    pass "$name mapping behaviour: $m1"
  else
    local want='Address [and Port] Dependent'
    if [[ $mode == cone ]]; then want='Endpoint Independent'; fi
    fail "$name mapping behaviour: '${m1:-unknown}' (want $want Mapping)"
  fi
  expect "$name reaches the WAN address (ping $WAN_ADDR)" nsx "$ns" ping -c1 -W2 $WAN_ADDR
  expect "$name reaches coturn tcp $WAN_ADDR:$TURN_PORT" nsx "$ns" timeout 3 bash -c "exec 3<>/dev/tcp/$WAN_ADDR/$TURN_PORT"
  expect "$name reaches mosquitto tcp $WAN_ADDR:$BROKER_PORT" nsx "$ns" timeout 3 bash -c "exec 3<>/dev/tcp/$WAN_ADDR/$BROKER_PORT"
  expect "$name TURN relay over udp, user $TURN_USER" relay_ok "$ns" -u $TURN_USER -w $TURN_PASSWORD -p $TURN_PORT
  expect "$name TURN relay over tcp, user $TURN_USER" relay_ok "$ns" -t -u $TURN_USER -w $TURN_PASSWORD -p $TURN_PORT
  expect "$name TURN relay, REST secret (port $TURN_REST_PORT)" relay_ok "$ns" -u "$name" -W $TURN_SECRET -p $TURN_REST_PORT
  expect_not "$name TURN relay refused with a wrong password" relay_ok "$ns" -u $TURN_USER -w wrong -p $TURN_PORT
}

check_between() { # nat mode
  local mode=$1 port=$((42000 + RANDOM % 1000)) out topic=zrc/v1/natlab/check-$$
  expect_not "host cannot reach ctl's private address (ping $CTL_ADDR)" nsx "$HOST" ping -c1 -W1 $CTL_ADDR
  expect_not "host cannot reach ctl's NAT unsolicited (ping $CNAT_OUT)" nsx "$HOST" ping -c1 -W1 $CNAT_OUT
  expect_not "ctl cannot reach host's private address (ping $HOST_ADDR)" nsx "$CTL" ping -c1 -W1 $HOST_ADDR
  expect_not "ctl cannot reach host's NAT unsolicited (ping $HNAT_OUT)" nsx "$CTL" ping -c1 -W1 $HNAT_OUT
  expect_not "ctl cannot open tcp to host's NAT ($HNAT_OUT:22)" nsx "$CTL" timeout 2 bash -c "exec 3<>/dev/tcp/$HNAT_OUT/22"
  if [[ "$(ip -n "$HOST" -br link show eth1 2>/dev/null | awk '{print $2}')" == UP ]]; then
    expect "direct LAN link: host pings ctl $CTL_LAN_ADDR" nsx "$HOST" ping -c1 -W1 $CTL_LAN_ADDR
  else
    expect_not "no direct LAN link: host cannot ping $CTL_LAN_ADDR" nsx "$HOST" ping -c1 -W1 $CTL_LAN_ADDR
  fi
  # Hole punching to the port the peer would have if its NAT kept ports: works through cone NATs,
  # fails through symmetric ones (the mapped port is random).
  punch "$HOST" $port $CNAT_OUT & local hp=$!
  punch "$CTL" $port $HNAT_OUT & local cp=$!
  local punched=yes; wait $hp || punched=no; wait $cp || punched=no
  if [[ $mode == cone && $punched == yes ]]; then
    pass "UDP hole punch host:$port <-> ctl:$port via the NATs works"
  elif [[ $mode == cone ]]; then
    fail "UDP hole punch host:$port <-> ctl:$port via the NATs failed"
  elif [[ $punched == no ]]; then
    pass "UDP hole punch to predicted ports fails (symmetric)"
  else
    fail "UDP hole punch to predicted ports worked through symmetric NATs"
  fi
  # MQTT through both NATs: host publishes a retained message, ctl reads it, host clears it.
  # (A failed publish or read leaves its messages in out, which the comparison below shows.)
  if out=$(nsx "$HOST" timeout 5 mosquitto_pub -h $WAN_ADDR -p $BROKER_PORT -q 1 -r -t "$topic" -m "hello-$$" 2>&1); then
    out=$(nsx "$CTL" timeout 5 mosquitto_sub -h $WAN_ADDR -p $BROKER_PORT -t "$topic" -C 1 -W 4 2>&1) || true
  fi
  nsx "$HOST" timeout 5 mosquitto_pub -h $WAN_ADDR -p $BROKER_PORT -q 1 -r -n -t "$topic" >/dev/null 2>&1 || true
  if [[ "$out" == "hello-$$" ]]; then pass "MQTT host -> broker -> ctl"; else fail "MQTT host -> broker -> ctl: '$out'"; fi
}

cmd_check() {
  [[ -f "$STATE/env" ]] || die "lab $ID is not up"
  local mode tmp fails
  mode=$(sed -n 's/^ZRC_NAT_MODE=//p' "$STATE/env")
  tmp=$(mktemp -d "$STATE/check.XXXXXX")
  echo "lab $ID, nat $mode"
  check_side host "$HOST" $HNAT_OUT "$mode" >"$tmp/host" 2>&1 &
  check_side ctl "$CTL" $CNAT_OUT "$mode" >"$tmp/ctl" 2>&1 &
  check_between "$mode" >"$tmp/between" 2>&1 &
  wait
  cat "$tmp/host" "$tmp/ctl" "$tmp/between"
  fails=$(cat "$tmp/host" "$tmp/ctl" "$tmp/between" | grep -c '^FAIL' || true)
  rm -rf "$tmp"
  echo "$fails failed"
  ((fails == 0))
}

case "$cmd" in
  up) cmd_up ;;
  down) cmd_down ;;
  check) cmd_check ;;
  env) [[ -f "$STATE/env" ]] || die "lab $ID is not up"; print_env ;;
  lan-up) ns_exists "$HOST" || die "lab $ID is not up"; lan_up ;;
  lan-down) lan_down ;;
  stop-broker) stop_broker ;;
  start-broker) # no-op when it is running
    [[ -f "$STATE/mosquitto.conf" ]] || die "lab $ID is not up"
    daemon_pid mosquitto >/dev/null || start_broker ;;
  restart-broker) [[ -f "$STATE/mosquitto.conf" ]] || die "lab $ID is not up"; stop_broker; start_broker ;;
  *) usage ;;
esac
