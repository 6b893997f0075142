#!/usr/bin/env bash
# The benchmarks, from a fresh clone on a fresh Debian machine: installs the system packages
# (Xvfb included), builds zrc-bench in release mode, and runs it. With no arguments it runs the
# real pipeline (`zrc-bench pipeline`: its own 1920x1080 Xvfb, a test client, a controller
# process), the single-stage floors (`zrc-bench floors`), click-to-frame latency with the
# terminal renderers, with one viewer and with two (`zrc-bench latency --viewers 2`), a
# controller's pings and the host's memory under attack (`zrc-bench flood`), PNG screenshot size
# on a desktop (`zrc-bench screenshot`), the browser viewer in headless Chromium beside the
# terminal path (`zrc-bench web`, video-like and scrolling motion at 1920x1080 and 1280x720), and, as root, the
# link profiles of the network laboratory (`zrc-bench links`) and reaching a host across NATs
# (`zrc-bench reach`), and pairing by code (Tools/bench-pair-code.sh); arguments go to
# zrc-bench instead, e.g. `Tools/bench.sh compare` (ZRC beside TigerVNC and x11vnc on every link
# profile, about 40 minutes, root) or
# `Tools/bench.sh pipeline --seconds 10 --workloads motion` or `Tools/bench.sh latency --trials 500`.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
DIE_PREFIX=""
cd "$REPO_ROOT"

"$(pwd)/Tools/install-deps.sh" --with-bench
# The browser viewer's benchmark drives Debian's chromium through Playwright for Python.
ZRC_PLAYWRIGHT_PYTHON="$("$(pwd)/Tools/install-playwright.sh")"
export ZRC_PLAYWRIGHT_PYTHON
export ZRC_REPOSITORY="$REPO_ROOT"

use_swift_toolchain swift

echo "== build (release) ==" >&2
# Linked like the product (Tools/zrc.sh): the host it measures has the same resident memory.
swift build -c release --static-swift-stdlib --product zrc-bench 2>&1 | grep -v "prohibited flag(s): -pthread" || die "build failed"
# The network laboratory's delay helper, beside zrc-bench (`links`, `lab-check`).
swift build -c release --static-swift-stdlib --product zrc-netdelay 2>&1 | grep -v "prohibited flag(s): -pthread" || die "build failed"
bench="$(swift build -c release --static-swift-stdlib --show-bin-path)/zrc-bench"

if [[ $# -gt 0 ]]; then exec "$bench" "$@"; fi
"$bench" pipeline
echo
"$bench" floors
echo
"$bench" latency --viewers 2
echo
"$bench" flood
echo
"$bench" screenshot
echo
# The browser viewer beside the terminal path, at two sizes; the memory soak (10 minutes) once.
"$bench" web --size 1920x1080
echo
"$bench" web --size 1920x1080 --motion scroll
echo
"$bench" web --size 1280x720 --soak-seconds 600
echo
"$bench" web --size 1280x720 --motion scroll
echo
# File transfer on loopback against its floors, and a resume after the controller is killed.
"$bench" files
echo
# Why the page gets raw rects: drawing them against decoding forwarded JPEG, in the same browser.
echo "loopback encodings (in-page draw ms, bytes on the WebSocket):"
"$ZRC_PLAYWRIGHT_PYTHON" Tools/web-test/loopback-encodings.py 40
echo
# The link profiles need network namespaces, tc and iptables: root only.
if [[ $(id -u) -eq 0 ]]; then
  "$bench" links
  echo
  "$bench" reach
  echo
  # A 50 MB upload over dsl while the screen scrolls: the link's share and the click's answer.
  "$bench" files-lab
  echo
  # Pairing by code on a LAN with Avahi and between two NATs through Mosquitto.
  Tools/bench-pair-code.sh
else
  say "skipping \`links\`, \`reach\` and pairing by code (the network laboratories need root)"
fi
