#!/usr/bin/env bash
# Installs every Debian package ZRC needs to build, run and test. Idempotent: packages already
# present are not reinstalled, and nothing runs when everything is there.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# Build: one -dev package per C library the adapters wrap, plus pkg-config to find them.
BUILD_PACKAGES=(
  pkg-config
  libsodium-dev
  libturbojpeg0-dev
  libxcb1-dev libxcb-shm0-dev libxcb-xtest0-dev libxcb-damage0-dev libxcb-xfixes0-dev libxcb-randr0-dev libxcb-render0-dev
  libsecret-1-dev
  libchafa-dev
  libzstd-dev
  zlib1g-dev
  libnetfilter-queue-dev
  libnice-dev libavahi-client-dev libavahi-glib-dev libmosquitto-dev
)
# Run: a virtual X display for hosts without one (with an xterm, a clock and eyes on it as something
# to look at and click in the demo; openbox as the window manager of `zrc-host serve --virtual`),
# and a keyring for identity keys.
RUN_PACKAGES=(
  xvfb xauth x11-utils x11-xserver-utils x11-apps xterm xdotool openbox
  dbus dbus-x11 gnome-keyring libsecret-tools
)
# Reach across NATs in the tests and the benchmark: a TURN/STUN server, an MQTT broker for the
# rendezvous, avahi-daemon for LAN discovery, and tcpdump to prove nothing travels in the clear.
REACH_PACKAGES=(
  coturn mosquitto mosquitto-clients avahi-daemon avahi-utils tcpdump
)
# Test: real terminals for the viewer tests (xterm above, tmux, kitty with Mesa's software OpenGL,
# since Xvfb has no GPU), the schema checker, X clients that own and read selections (xclip, xsel),
# an independent PNG reader (netpbm's pngtopnm), openssl for the broker tests' certificates, and
# Debian's chromium for the browser viewer's tests (driven by Playwright for Python from PyPI in
# a venv: Tools/install-playwright.sh), and shellcheck, which every shell script here must pass
# (Tools/shellcheck.sh).
TEST_PACKAGES=(
  tmux kitty libgl1-mesa-dri python3 python3-jsonschema xclip xsel netpbm openssl
  chromium python3-venv shellcheck
)

# Network laboratory (tests and `zrc-bench links`): namespaces, shaping and NFQUEUE delay need
# iproute2 and iptables; ping and ethtool check and tune the link. The VNC servers ZRC is compared
# with (`Tools/bench.sh compare`).
LAB_PACKAGES=(
  iproute2 iptables iputils-ping ethtool
  tigervnc-standalone-server tigervnc-scraping-server x11vnc
)

# Packaging (Tools/package.sh): dpkg-shlibdeps works out the packages' library dependencies, strip
# drops the symbol tables; the package test (Tools/package-check.sh) runs lintian over them,
# installs them into a fresh Debian made with debootstrap, systemd-analyze checks the units and
# desktop-file-validate the desktop entry.
PACKAGING_PACKAGES=(
  dpkg-dev binutils debootstrap systemd lintian desktop-file-utils
)

want=("${BUILD_PACKAGES[@]}" "${RUN_PACKAGES[@]}")
case "${1:-}" in
  --with-test) want+=("${TEST_PACKAGES[@]}" "${LAB_PACKAGES[@]}" "${REACH_PACKAGES[@]}" "${PACKAGING_PACKAGES[@]}") ;;
  --with-bench) want+=("${LAB_PACKAGES[@]}" "${REACH_PACKAGES[@]}" chromium python3-venv) ;;
  --with-packaging) want+=("${PACKAGING_PACKAGES[@]}") ;;
esac

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
  SUDO=sudo
  command -v sudo >/dev/null || { say "missing packages (${missing[*]}) and not root; install them or run as root"; exit 1; }
else
  SUDO=
fi

# Another process (unattended upgrades, a parallel install) can hold the dpkg lock for a while:
# wait and retry rather than failing the whole run.
# Only a held lock is worth waiting for; any other failure (unknown package, no network) is final.
apt_retry() {
  local i log
  log=$(mktemp)
  for i in $(seq 1 60); do
    if DEBIAN_FRONTEND=noninteractive $SUDO apt-get "$@" 2> >(tee "$log" >&2); then rm -f "$log"; return 0; fi
    if ! grep -qiE "could not get lock|unable to acquire the dpkg|is another process using it" "$log"; then
      rm -f "$log"
      return 1
    fi
    say "the package database is locked by another process (attempt $i); retrying in 5 s"
    sleep 5
  done
  rm -f "$log"
  return 1
}

# True when apt has no package lists yet (a fresh machine: /var/lib/apt/lists holds at most its
# lock and partial/).
no_package_lists() {
  local entry
  [[ -e /var/lib/apt/lists/lock ]] || return 0
  for entry in /var/lib/apt/lists/*; do
    case "${entry##*/}" in *lock* | *partial*) ;; *) [[ -e "$entry" ]] && return 1 ;; esac
  done
  return 0
}

say "installing ${missing[*]}"
# The lists first when there are none, or when they do not know the first missing package.
if no_package_lists || ! apt-cache policy "${missing[0]}" 2>/dev/null | grep -q Candidate: || apt-cache policy "${missing[0]}" | grep -q 'Candidate: (none)'; then
  apt_retry update -q
fi
apt_retry install -y -q --no-install-recommends "${missing[@]}"
