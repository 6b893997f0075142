#!/usr/bin/env bash
# Pairing by a short code, timed as a person meets it: from the moment the code is entered
# (`zrc-ctl pair --code` starts with it on standard input) until the controller has paired
# (`zrc-ctl` exits 0) — process start, finding the host, CPace and the pairing handshake included.
#
#   - LAN: the mDNS laboratory (Tools/mdnslab.sh), host in node1, controller in node0, Avahi in
#     each, no broker: the host is found through `_zrc-pair._tcp`.
#   - NAT: the NAT laboratory (Tools/natlab.sh, cone NATs, no LAN link), Mosquitto on the WAN: the
#     host is found at the broker, and the pairing handshake goes through the rendezvous and ICE.
#
# Prints p50/p95 per path against the bars (LAN ≤ 1 s, NAT ≤ 2 s at p95). Needs root.
# Usage: Tools/bench-pair-code.sh [TRIALS]   (default 20 per path)
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"
[[ $EUID -eq 0 ]] || die "needs root (network namespaces)"
TRIALS="${1:-20}"
if ! [[ "$TRIALS" =~ ^[0-9]+$ ]] || ((TRIALS < 2 || TRIALS > 1000)); then die "TRIALS must be 2..1000"; fi

use_swift_toolchain swift
echo "== build (release) ==" >&2
for product in zrc-host zrc-ctl; do
  swift build -c release --static-swift-stdlib --product "$product" 2>&1 | grep -v "prohibited flag(s): -pthread" >&2 || die "build failed"
done
BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)"

WORK="$(mktemp -d /tmp/zrc-bench-pair-XXXXXX)"
LAB_ID="pb$$"
HOST_PID=""
cleanup() {
  [[ -n "$HOST_PID" ]] && kill "$HOST_PID" 2>/dev/null && wait "$HOST_PID" 2>/dev/null
  Tools/mdnslab.sh down --id "$LAB_ID" >/dev/null 2>&1 || true
  Tools/natlab.sh down --id "$LAB_ID" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# role_env ROLE: the role's own XDG directories, as the end-to-end tests give each role.
role_env() {
  local base="$WORK/$1"
  mkdir -p "$base/config/zrc" "$base/data" "$base/run"
  chmod 0700 "$base" "$base/config" "$base/config/zrc" "$base/data" "$base/run"
  echo "XDG_CONFIG_HOME=$base/config XDG_DATA_HOME=$base/data XDG_RUNTIME_DIR=$base/run"
}

# wait_for FILE TEXT SECONDS: until FILE contains TEXT (bounded).
wait_for() {
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# measure NAME HOST_PREFIX CTL_PREFIX: TRIALS pairings; prints the durations in ms, one per line.
measure() {
  local name="$1" host_run="$2" ctl_run="$3" trial out code start end
  for ((trial = 1; trial <= TRIALS; trial++)); do
    out="$WORK/pair-$name-$trial.out"
    # shellcheck disable=SC2046,SC2086  # the environment and the prefixes are words on purpose
    env $(role_env host) $host_run "$BIN/zrc-host" pair --code --json >"$out" 2>"$out.err" &
    local pair_pid=$!
    wait_for "$out" '"code"' 30 || die "$name: no code: $(cat "$out.err")"
    code="$(head -n 1 "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["code"])')"
    start="$(date +%s%N)"
    # shellcheck disable=SC2046,SC2086
    echo "$code" | env $(role_env controller) $ctl_run "$BIN/zrc-ctl" pair --code --name desk >"$out.ctl" 2>&1 \
      || die "$name: trial $trial did not pair: $(cat "$out.ctl")"
    end="$(date +%s%N)"
    wait "$pair_pid" || die "$name: zrc-host pair --code failed: $(cat "$out.err")"
    echo $(((end - start) / 1000000))
  done
}

report() {
  python3 - "$1" "$2" "$3" <<'EOF'
import statistics, sys
name, bar, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
values = sorted(float(line) for line in open(path) if line.strip())
def percentile(p):
    k = (len(values) - 1) * p
    f = int(k); c = min(f + 1, len(values) - 1)
    return values[f] + (values[c] - values[f]) * (k - f)
p95 = percentile(0.95)
print(f"{name:4}  n={len(values):3}  p50 {statistics.median(values):7.0f} ms  p95 {p95:7.0f} ms  max {values[-1]:7.0f} ms"
      f"   bar p95 ≤ {bar:.0f} ms: {'met' if p95 <= bar else 'MISSED'}")
EOF
}

echo "code entered → paired, $TRIALS trials per path, $(nproc) cores" >&2

# LAN: Avahi only.
Tools/mdnslab.sh up --id "$LAB_ID" --hosts 1 >/dev/null
echo '{"keyStore": "file"}' >"$WORK/host-config.json"
mkdir -p "$WORK/host/config/zrc" "$WORK/controller/config/zrc"
cp "$WORK/host-config.json" "$WORK/host/config/zrc/host.json"
echo '{"keyStore": "file"}' >"$WORK/controller/config/zrc/controller.json"
# shellcheck disable=SC2046
env $(role_env host) Tools/mdnslab.sh exec --id "$LAB_ID" node1 -- "$BIN/zrc-host" serve --host-name bench-lan --log-level info \
  >"$WORK/serve-lan.log" 2>&1 &
HOST_PID=$!
wait_for "$WORK/serve-lan.log" "LAN discovery: published" 30 || die "the LAN host did not start: $(cat "$WORK/serve-lan.log")"
measure lan "Tools/mdnslab.sh exec --id $LAB_ID node1 --" "Tools/mdnslab.sh exec --id $LAB_ID node0 --" >"$WORK/lan.ms"
kill "$HOST_PID"; wait "$HOST_PID" 2>/dev/null || true; HOST_PID=""
Tools/mdnslab.sh down --id "$LAB_ID" >/dev/null

# NAT: the broker only, the pairing handshake through the rendezvous and ICE.
rm -rf "$WORK/host" "$WORK/controller"
lab="$(Tools/natlab.sh up --id "$LAB_ID" --nat cone)"
value() { sed -n "s/^$1=//p" <<<"$lab"; }
broker="mqtt://$(value ZRC_NAT_BROKER)"
stun="stun:$(value ZRC_NAT_TURN)"
mkdir -p "$WORK/host/config/zrc" "$WORK/controller/config/zrc"
echo "{\"keyStore\": \"file\", \"listen\": \"0.0.0.0:7420\", \"rendezvousUrls\": [\"$broker\"], \"stunUrls\": [\"$stun\"], \"lanDiscovery\": false}" \
  >"$WORK/host/config/zrc/host.json"
echo "{\"keyStore\": \"file\", \"rendezvousUrls\": [\"$broker\"], \"stunUrls\": [\"$stun\"]}" >"$WORK/controller/config/zrc/controller.json"
# shellcheck disable=SC2046
env $(role_env host) ip netns exec "$(value ZRC_NAT_HOST_NS)" "$BIN/zrc-host" serve --host-name bench-nat --log-level info \
  >"$WORK/serve-nat.log" 2>&1 &
HOST_PID=$!
wait_for "$WORK/serve-nat.log" "rendezvous: listening for controllers" 30 || die "the NAT host did not start: $(cat "$WORK/serve-nat.log")"
measure nat "ip netns exec $(value ZRC_NAT_HOST_NS)" "ip netns exec $(value ZRC_NAT_CTL_NS)" >"$WORK/nat.ms"

echo
echo "pairing by code: code entered → paired (zrc-ctl pair --code, process start included)"
report LAN 1000 "$WORK/lan.ms"
report NAT 2000 "$WORK/nat.ms"
