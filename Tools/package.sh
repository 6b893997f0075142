#!/usr/bin/env bash
# Builds the Debian packages `zrc-host` and `zrc-ctl` for this machine's architecture:
#
#   Tools/package.sh [--out DIR]      (default DIR: .build/packages)
#
# Each package holds its program built in release mode with the Swift runtime and Foundation
# linked in (--static-swift-stdlib), so it runs on a Debian machine without a Swift toolchain;
# its Depends are the Debian libraries the program links, as dpkg-shlibdeps works them out, and
# those it opens when reaching other machines (libnice, Avahi, libmosquitto). Also
# inside: a man page and bash, zsh and fish completions generated from the argument parser, and
# (zrc-host) systemd user units. Prints the paths of the two .deb files on stdout.
#
# The packages are meant to pass lintian with no error or warning (Tools/package-check.sh checks):
# a Debian changelog, a machine-readable copyright file (Packaging/copyright), md5sums, and
# descriptions wrapped to Debian's widths.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"
repo=$REPO_ROOT
out="$repo/.build/packages"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) say "unknown argument \`$1\` (try --help)"; exit 64 ;;
  esac
done

"$repo/Tools/install-deps.sh" --with-packaging
use_swift_toolchain swift

work=$(mktemp -d)
at_exit rm -rf "$work"
log="$repo/.build/package.log"
: >"$log"
quiet_build() {
  "$@" >>"$log" 2>&1 || { grep -v "prohibited flag" "$log" | tail -40 >&2; die "build failed: $*"; }
}

# Libraries both programs open with dlopen only when they reach over ICE, the LAN or a rendezvous
# broker (CReach's reach_libraries.h, CMosquitto's zrc_mosquitto.h): dpkg-shlibdeps sees linked
# libraries only, so these are added as it would add them, from the shlibs file of the package
# that ships each one.
on_demand_sonames=(libnice.so.10 libavahi-client.so.3 libavahi-glib.so.1 libmosquitto.so.1)
on_demand_depends() {
  local soname package entry list=""
  for soname in "${on_demand_sonames[@]}"; do
    package=$(dpkg-query -S "*/$soname" 2>/dev/null | head -1 | cut -d: -f1)
    [[ -n "$package" ]] || die "no installed package ships $soname (Tools/install-deps.sh installs it)"
    entry=$(awk -v name="${soname%%.so.*}" -v major="${soname##*.so.}" \
      '$1 == name && $2 == major { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' /var/lib/dpkg/info/"$package"*.shlibs 2>/dev/null || true)
    list+="${list:+, }${entry:-$package}"
  done
  echo "$list"
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
# Packages built by the project from its own tree: the first Debian revision (-1) of the upstream
# version, so the changelog is changelog.Debian.gz.
version="$upstream-1"
# The changelog's entry for this build and the copyright years come from the history; outside a
# git checkout, from today.
commit="" changelog_date=$(date -R) years=$(date +%Y)
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  commit=$(git -C "$repo" rev-parse --short=8 HEAD)
  # Sorts before the release itself (~) and in commit order (the commit's date first).
  version="$upstream~git$(git -C "$repo" log -1 --format=%cd --date=format:%Y%m%d%H%M%S).$commit-1"
  changelog_date=$(git -C "$repo" log -1 --format=%cD)
  first_year=$(git -C "$repo" log --reverse --format=%cd --date=format:%Y | sed -n 1p)
  last_year=$(git -C "$repo" log -1 --format=%cd --date=format:%Y)
  years=$first_year
  [[ "$last_year" == "$first_year" ]] || years="$first_year-$last_year"
fi
arch=$(dpkg --print-architecture)
date=$(git -C "$repo" log -1 --format=%cd --date=format:%Y-%m-%d 2>/dev/null || date +%Y-%m-%d)
maintainer="ZRC developers <zrc-dev@lists.zrc.invalid>"
mkdir -p "$out"
rm -f "$out"/zrc-host_*.deb "$out"/zrc-ctl_*.deb

# Debian's description layout: the paragraphs of the extended description wrapped to 79 columns
# with their leading space, a line holding " ." between paragraphs.
description_body() { # TEXT (paragraphs separated by an empty line)
  printf '%s\n' "$1" | fmt -w 78 -g 78 | sed -e 's/^$/./' -e 's/^/ /'
}

# build_package NAME RECOMMENDS SYNOPSIS DESCRIPTION
build_package() {
  local name=$1 recommends=$2 summary=$3 body=$4
  local root="$work/$name" doc="$work/$name/usr/share/doc/$name"
  ((${#summary} < 80)) || die "the synopsis of $name is ${#summary} characters, Debian allows 79"
  mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$doc" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
  install -m 0755 "$bin/$name" "$root/usr/bin/$name"
  # Symbols and debug sections only: Swift's runtime metadata lives in loaded sections strip keeps.
  # .comment and .note go as well, as Debian's dh_strip does (compiler banners, nothing loaded).
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/$name"

  mkdir -p "$work/man-$name"
  "$manual" "$bin/$name" --output-directory "$work/man-$name" --date "$date" --section 1 \
    --authors "The ZRC developers" >>"$log" 2>&1 || die "generate-manual failed for $name (log: $log)"
  local page
  # An empty line in a help text's discussion comes out as an empty input line, which groff
  # warns about: mdoc's paragraph break (.Pp) is what it means.
  for page in "$work/man-$name"/*.1; do
    sed 's/^[[:space:]]*$/.Pp/' "$page" | gzip -9n >"$root/usr/share/man/man1/$(basename "$page").gz"
  done
  # A completion file is sourced by bash-completion, never run: no #! line.
  "$bin/$name" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/usr/share/bash-completion/completions/$name"
  "$bin/$name" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$name"
  "$bin/$name" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/$name.fish"
  if [[ "$name" == zrc-host ]]; then
    mkdir -p "$root/usr/lib/systemd/user"
    install -m 0644 Packaging/zrc-host.service Packaging/zrc-host-virtual.service "$root/usr/lib/systemd/user/"
  fi
  if [[ "$name" == zrc-ctl ]]; then
    # "ZRC" in the desktop's applications menu: runs `zrc-ctl app`, which opens the browser.
    mkdir -p "$root/usr/share/applications" "$root/usr/share/icons/hicolor/scalable/apps"
    install -m 0644 Packaging/zrc.desktop "$root/usr/share/applications/zrc.desktop"
    install -m 0644 Packaging/zrc.svg "$root/usr/share/icons/hicolor/scalable/apps/zrc.svg"
  fi
  sed "s/@YEARS@/$years/" Packaging/copyright >"$doc/copyright"
  chmod 0644 "$doc/copyright"
  {
    printf 'zrc (%s) unstable; urgency=medium\n\n' "$version"
    if [[ -n "$commit" ]]; then
      printf '  * Built from commit %s of the ZRC repository (upstream %s).\n' "$commit" "$upstream"
    else
      printf '  * Built from a ZRC source tree outside git (upstream %s).\n' "$upstream"
    fi
    printf '\n -- %s  %s\n' "$maintainer" "$changelog_date"
  } | gzip -9n >"$doc/changelog.Debian.gz"
  # Lintian asks a first upload to Debian (one changelog entry, revision -1) to close its ITP bug;
  # its description says to ignore that for a package not meant for Debian, which these are.
  mkdir -p "$root/usr/share/lintian/overrides"
  {
    echo "# Built by the ZRC project itself, not uploaded to Debian: there is no ITP bug to close."
    echo "$name: initial-upload-closes-no-bugs"
  } >"$root/usr/share/lintian/overrides/$name"

  # dpkg-shlibdeps reads the package list from a debian/control next to the files it checks.
  mkdir -p "$work/shlibs-$name/debian"
  printf 'Source: zrc\n\nPackage: %s\nArchitecture: any\n' "$name" >"$work/shlibs-$name/debian/control"
  local depends
  depends=$(cd "$work/shlibs-$name" && dpkg-shlibdeps -O -e"$root/usr/bin/$name" 2>>"$log" | sed -n 's/^shlibs:Depends=//p')
  [[ -n "$depends" ]] || die "dpkg-shlibdeps found no dependencies for $name (log: $log)"
  depends+=", $(on_demand_depends)"
  local size
  size=$(du -sk "$root/usr" | cut -f1)
  cat >"$root/DEBIAN/control" <<TXT
Package: $name
Source: zrc
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: $recommends
Section: net
Priority: optional
Description: $summary
$(description_body "$body")
TXT
  (cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
  local deb="$out/${name}_${version}_${arch}.deb"
  dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >>"$log" 2>&1 || die "dpkg-deb failed for $name (log: $log)"
  say "built $deb"
  echo "$deb"
}

build_package zrc-host "xvfb, xauth, openbox, xterm, gnome-keyring" \
  "ZRC remote-control host: share an X11 screen with paired controllers" \
  "zrc-host serve shares this machine's X screen (or a virtual desktop of its own
with --virtual) with controllers paired through one-time invites. Sessions are
Noise-encrypted and mutually authenticated; the host key lives in the Secret
Service keyring."
build_package zrc-ctl "gnome-keyring" \
  "ZRC remote-control controller: view and control ZRC hosts" \
  "zrc-ctl pairs with ZRC hosts, shows their screens in a terminal (kitty
graphics, sixel or Unicode symbols) with mouse and keyboard mapped to the
remote screen, and scripts input, screenshots and the clipboard.

zrc-ctl app (\"ZRC\" in the desktop's menu) is the same controller in a
browser window: devices with presence, pairing by code, settings and the
remote screen."
