#!/usr/bin/env bash
# Installs the built packages into a fresh Debian without a Swift toolchain and checks them:
#
#   Tools/package-check.sh DIR       (DIR holds zrc-host_*.deb and zrc-ctl_*.deb, from Tools/package.sh)
#
# First lintian, Debian's package checker: no error and no warning (informational tags may stay;
# the packages' own overrides, in /usr/share/lintian/overrides, say why they apply).
# The fresh Debian is a minimal root made with debootstrap from this machine's own Debian mirror
# (its base is cached in /var/cache/zrc-package-check for a week); apt resolves the packages'
# Depends from the same mirror. Inside it: both programs run (--version, --help, and a real
# command each), ldd finds every library and none from a Swift toolchain, the man pages, shell
# completions and systemd units are where they belong (systemd-analyze verifies the units), and
# removing the packages leaves nothing.
# Needs root (debootstrap, chroot). Prints one `ok: …` line per check; exits non-zero at the
# first failure, with the reason. Removes everything it created.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
DIE_PREFIX="FAILED: "
dir="${1:?usage: Tools/package-check.sh DIR-WITH-DEBS}"
ok() { printf 'ok: %s\n' "$*"; }

# The newest of the files given (the glob of a package name may match older builds too).
newest() {
  local file found=""
  for file in "$@"; do
    if [[ -f "$file" && ( -z "$found" || "$file" -nt "$found" ) ]]; then found=$file; fi
  done
  printf '%s' "$found"
}

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap and chroot)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (Tools/install-deps.sh --with-packaging)"
command -v lintian >/dev/null || die "lintian is not installed (Tools/install-deps.sh --with-packaging)"
host_deb=$(newest "$dir"/zrc-host_*.deb)
ctl_deb=$(newest "$dir"/zrc-ctl_*.deb)
[[ -n "$host_deb" && -n "$ctl_deb" ]] || die "no zrc-host_*.deb and zrc-ctl_*.deb in $dir (run Tools/package.sh)"

# Errors and warnings fail; lintian's own complaint about running as root (this check needs root
# for what follows) is no finding about the packages.
if ! findings=$(lintian --fail-on error,warning "$host_deb" "$ctl_deb" 2>&1); then
  die "lintian reports errors or warnings:
$(grep -v '^running with root privileges is not recommended!$' <<<"$findings")"
fi
ok "lintian: no errors or warnings in $(basename "$host_deb") and $(basename "$ctl_deb")"

# This machine's Debian release and mirror (deb822 `URIs:` or one-line `deb` sources).
# shellcheck source=/dev/null  # the running system's file, not one of the repository
. /etc/os-release
suite="${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}"
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p; s/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
  | grep -v security | head -1 || true)
[[ -n "$mirror" ]] || die "no Debian mirror found in /etc/apt/sources.list*"

root=$(mktemp -d /tmp/zrc-package-root.XXXXXX)
at_exit rm -rf --one-file-system "$root"

cache=/var/cache/zrc-package-check
base="$cache/$suite-minbase.tar"
mkdir -p "$cache"
if [[ -f "$base" && -z "$(find "$base" -mtime +7)" ]]; then
  tar -xf "$base" -C "$root"
else
  say "debootstrap $suite (minbase) from $mirror"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 \
    || { tail -20 "$root.debootstrap.log" >&2; rm -f "$root.debootstrap.log"; die "debootstrap failed"; }
  rm -f "$root.debootstrap.log"
  tar -cf "$base.tmp" -C "$root" . && mv "$base.tmp" "$base"
fi
ok "a fresh $suite root from debootstrap"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
mount -t proc proc "$root/proc"
at_exit umount -l "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
if [[ -e "$root/usr/lib/swift" ]] || in_root sh -c 'command -v swift' >/dev/null; then die "the fresh root has a Swift toolchain"; fi
ok "no Swift toolchain in the root"

cp "$host_deb" "$ctl_deb" "$root/tmp/"
in_root apt-get update -q >"$root/tmp/apt.log" 2>&1 || { tail -20 "$root/tmp/apt.log" >&2; die "apt-get update failed in the root"; }
# Depends only: the Recommends (Xvfb, a window manager, the keyring) are for using the host. No
# fsync for every file dpkg unpacks: a throwaway root, and a machine busy with other work.
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -q --no-install-recommends \
  -o Dpkg::Options::=--force-unsafe-io "/tmp/$(basename "$host_deb")" "/tmp/$(basename "$ctl_deb")" >>"$root/tmp/apt.log" 2>&1 \
  || { tail -30 "$root/tmp/apt.log" >&2; die "apt-get could not install the packages"; }
ok "apt-get installed $(basename "$host_deb") and $(basename "$ctl_deb") with their Depends"

for program in zrc-host zrc-ctl; do
  missing=$(in_root ldd "/usr/bin/$program" | grep -E "not found|swift|/opt/|\.build" || true)
  [[ -z "$missing" ]] || die "$program: ldd shows missing or toolchain libraries: $missing"
  ok "$program: ldd finds every library in the root's /lib and /usr/lib"
  version=$(in_root "$program" --version) || die "$program --version failed"
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || die "$program --version printed \`$version\`"
  ok "$program --version: $version"
  in_root "$program" --help | grep -q "USAGE: $program" || die "$program --help shows no usage"
  ok "$program --help"
  # A real command: a new identity key in the file store (libsodium, storage, the lot).
  fingerprint=$(in_root "$program" identity --key-store file 2>&1) || die "$program identity failed: $fingerprint"
  grep -qE '[a-z0-9]{4}(-[a-z0-9]{4}){3}' <<<"$fingerprint" || die "$program identity printed no fingerprint: $fingerprint"
  ok "$program identity --key-store file made a key"
  # grep -c reads to the end: with -q, zcat could die of SIGPIPE and fail the pipeline.
  if [[ ! -s "$root/usr/share/man/man1/$program.1.gz" ]] || ! zcat "$root/usr/share/man/man1/$program.1.gz" | grep -c "^\.Sh SYNOPSIS" >/dev/null; then
    die "$program: no man page"
  fi
  ok "$program: man page"
  [[ -s "$root/usr/share/bash-completion/completions/$program" && -s "$root/usr/share/zsh/vendor-completions/_$program" \
    && -s "$root/usr/share/fish/vendor_completions.d/$program.fish" ]] || die "$program: completions missing"
  in_root bash -n "/usr/share/bash-completion/completions/$program" || die "$program: the bash completion does not parse"
  ok "$program: bash, zsh and fish completions"
done
for unit in zrc-host.service zrc-host-virtual.service; do
  file="$root/usr/lib/systemd/user/$unit"
  [[ -s "$file" ]] || die "no $unit"
  if ! grep -q '^ExecStart=/usr/bin/zrc-host serve' "$file" || ! grep -q '^Restart=on-failure' "$file"; then die "$unit: no ExecStart or Restart"; fi
  ok "$unit installed"
done
grep -q '^After=graphical-session.target' "$root/usr/lib/systemd/user/zrc-host.service" || die "zrc-host.service does not wait for the graphical session"
# systemd's own check of the units (as user units, pointing at the installed program).
if command -v systemd-analyze >/dev/null; then
  units="$root/tmp/units"
  mkdir -p "$units/run"
  for unit in zrc-host.service zrc-host-virtual.service; do
    sed "s|/usr/bin/zrc-host|$root/usr/bin/zrc-host|" "$root/usr/lib/systemd/user/$unit" >"$units/$unit"
  done
  complaints=$(XDG_RUNTIME_DIR="$units/run" systemd-analyze --user --man=no verify "$units/zrc-host.service" "$units/zrc-host-virtual.service" 2>&1) \
    || die "systemd-analyze verify failed: $complaints"
  [[ -z "$complaints" ]] || die "systemd-analyze verify complains: $complaints"
  ok "systemd-analyze verify accepts both units"
else
  say "systemd-analyze is not installed here: the units were checked by their lines only"
fi

# The desktop entry ("ZRC" in the menu opens `zrc-ctl app`) and its icon.
desktop="$root/usr/share/applications/zrc.desktop"
[[ -f "$desktop" && -f "$root/usr/share/icons/hicolor/scalable/apps/zrc.svg" ]] || die "zrc-ctl: the desktop entry or its icon is missing"
grep -qx 'Exec=zrc-ctl app' "$desktop" || die "zrc.desktop does not run \`zrc-ctl app\`: $(grep '^Exec=' "$desktop")"
command -v desktop-file-validate >/dev/null || die "desktop-file-validate is not installed (Tools/install-deps.sh --with-packaging)"
complaints=$(desktop-file-validate "$desktop" 2>&1) || die "desktop-file-validate refuses zrc.desktop: $complaints"
[[ -z "$complaints" ]] || die "desktop-file-validate complains about zrc.desktop: $complaints"
ok "zrc-ctl: a valid desktop entry that runs \`zrc-ctl app\`, with its icon"

in_root apt-get remove -y -q zrc-host zrc-ctl >>"$root/tmp/apt.log" 2>&1 || die "apt-get remove failed"
left=$(ls "$root/usr/bin/zrc-host" "$root/usr/bin/zrc-ctl" "$root/usr/lib/systemd/user/zrc-host.service" "$desktop" 2>/dev/null || true)
[[ -z "$left" ]] || die "files left after removal: $left"
ok "removing the packages leaves none of their files"
