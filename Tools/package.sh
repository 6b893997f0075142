#!/usr/bin/env bash
# Builds the Debian packages `zrc-host` and `zrc-ctl` for this machine's architecture:
#
#   Tools/package.sh [--out DIR]      (default DIR: .build/packages)
#
# Each package holds its program built in release mode with the Swift runtime and Foundation
# linked in (--static-swift-stdlib), so it runs on a Debian machine without a Swift toolchain;
# its Depends are the Debian libraries the program links, as dpkg-shlibdeps works them out. Also
# inside: a man page and bash, zsh and fish completions generated from the argument parser, and
# (zrc-host) systemd user units. Prints the paths of the two .deb files on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out="$repo/.build/packages"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package: unknown argument \`$1\` (try --help)" >&2; exit 64 ;;
  esac
done

say() { printf 'package: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

"$repo/Tools/install-deps.sh" --with-packaging
if ! command -v swift >/dev/null 2>&1; then
  [[ -x /opt/swift/usr/bin/swift ]] || die "no Swift toolchain found (PATH or /opt/swift); install Swift 6.1 or newer"
  export PATH=/opt/swift/usr/bin:$PATH
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$repo/.build/package.log"
: >"$log"
quiet_build() {
  "$@" >>"$log" 2>&1 || { grep -v "prohibited flag" "$log" | tail -40 >&2; die "build failed: $*"; }
}

say "building zrc-host and zrc-ctl (release, Swift runtime linked in)"
quiet_build swift build -c release --static-swift-stdlib --product zrc-host
quiet_build swift build -c release --static-swift-stdlib --product zrc-ctl
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"
# Built from the sources as they are now (the linker leaves an unchanged program's file alone):
# Tools/zrc.sh compares these times with the sources' to skip its build.
touch "$bin/zrc-host" "$bin/zrc-ctl"
# The argument parser's own man page generator (its `generate-manual` plugin would rebuild every
# product of this package in release mode without the static runtime just to read their help).
parser="$repo/.build/checkouts/swift-argument-parser"
[[ -d "$parser" ]] || die "no swift-argument-parser checkout in .build/checkouts (the build above should have made one)"
say "building the argument parser's generate-manual"
quiet_build swift build -c release --package-path "$parser" --scratch-path "$repo/.build/generate-manual" --product generate-manual
manual="$(swift build -c release --package-path "$parser" --scratch-path "$repo/.build/generate-manual" --show-bin-path)/generate-manual"

upstream=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/Executables/ZRCCommandSupport/ZRCVersion.swift)
[[ -n "$upstream" ]] || die "no version in Sources/Executables/ZRCCommandSupport/ZRCVersion.swift"
version="$upstream"
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  # Sorts before the release itself (~) and in commit order (the commit's date first).
  version="$upstream~git$(git -C "$repo" log -1 --format=%cd --date=format:%Y%m%d%H%M%S).$(git -C "$repo" rev-parse --short=8 HEAD)"
fi
arch=$(dpkg --print-architecture)
date=$(git -C "$repo" log -1 --format=%cd --date=format:%Y-%m-%d 2>/dev/null || date +%Y-%m-%d)
mkdir -p "$out"
rm -f "$out"/zrc-host_*.deb "$out"/zrc-ctl_*.deb

# build_package NAME RECOMMENDS DESCRIPTION-LINE DESCRIPTION-BODY
build_package() {
  local name=$1 recommends=$2 summary=$3 body=$4
  local root="$work/$name"
  mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/$name" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
  install -m 0755 "$bin/$name" "$root/usr/bin/$name"
  # Symbols and debug sections only: Swift's runtime metadata lives in loaded sections strip keeps.
  strip --strip-unneeded "$root/usr/bin/$name"

  mkdir -p "$work/man-$name"
  "$manual" "$bin/$name" --output-directory "$work/man-$name" --date "$date" --section 1 \
    --authors "The ZRC developers" >>"$log" 2>&1 || die "generate-manual failed for $name (log: $log)"
  local page
  for page in "$work/man-$name"/*.1; do gzip -9n <"$page" >"$root/usr/share/man/man1/$(basename "$page").gz"; done
  "$bin/$name" --generate-completion-script bash >"$root/usr/share/bash-completion/completions/$name"
  "$bin/$name" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$name"
  "$bin/$name" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/$name.fish"
  if [[ "$name" == zrc-host ]]; then
    mkdir -p "$root/usr/lib/systemd/user"
    install -m 0644 Packaging/zrc-host.service Packaging/zrc-host-virtual.service "$root/usr/lib/systemd/user/"
  fi
  cat >"$root/usr/share/doc/$name/copyright" <<TXT
ZRC ($name) $version

The Swift runtime and Foundation are linked into /usr/bin/$name: Copyright Apple Inc. and the
Swift project authors, Apache License 2.0 with Runtime Library Exception.
SwiftNIO, swift-log and swift-argument-parser are linked in too: Apache License 2.0.
TXT

  # dpkg-shlibdeps reads the package list from a debian/control next to the files it checks.
  mkdir -p "$work/shlibs-$name/debian"
  printf 'Source: zrc\n\nPackage: %s\nArchitecture: any\n' "$name" >"$work/shlibs-$name/debian/control"
  local depends
  depends=$(cd "$work/shlibs-$name" && dpkg-shlibdeps -O -e"$root/usr/bin/$name" 2>>"$log" | sed -n 's/^shlibs:Depends=//p')
  [[ -n "$depends" ]] || die "dpkg-shlibdeps found no dependencies for $name (log: $log)"
  local size
  size=$(du -sk "$root/usr" | cut -f1)
  cat >"$root/DEBIAN/control" <<TXT
Package: $name
Version: $version
Architecture: $arch
Maintainer: The ZRC developers <zrc@localhost>
Installed-Size: $size
Depends: $depends
Recommends: $recommends
Section: net
Priority: optional
Description: $summary
$(printf '%s\n' "$body" | sed 's/^/ /')
TXT
  local deb="$out/${name}_${version}_${arch}.deb"
  dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >>"$log" 2>&1 || die "dpkg-deb failed for $name (log: $log)"
  say "built $deb"
  echo "$deb"
}

build_package zrc-host "xvfb, xauth, openbox, xterm, gnome-keyring" \
  "ZRC remote-control host: share an X11 screen with paired controllers" \
  "zrc-host serve shares this machine's X screen (or a virtual desktop of its own with
--virtual) with controllers paired through one-time invites. Sessions are Noise-encrypted and
mutually authenticated; the host key lives in the Secret Service keyring."
build_package zrc-ctl "gnome-keyring" \
  "ZRC remote-control controller: view and control ZRC hosts from a terminal" \
  "zrc-ctl pairs with ZRC hosts, shows their screens in a terminal (kitty graphics, sixel or
Unicode symbols) with mouse and keyboard mapped to the remote screen, and scripts input,
screenshots and the clipboard."
