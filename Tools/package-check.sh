#!/usr/bin/env bash
# Installs the built packages into a fresh Debian without a Swift toolchain and checks them:
#
#   Tools/package-check.sh DIR       (DIR holds zrc-host_*.deb and zrc-ctl_*.deb, from Tools/package.sh)
#
# The fresh Debian is a minimal root made with debootstrap from this machine's own Debian mirror
# (its base is cached in /var/cache/zrc-package-check for a week); apt resolves the packages'
# Depends from the same mirror. Inside it: both programs run (--version, --help, and a real
# command each), ldd finds every library and none from a Swift toolchain, the man pages, shell
# completions and systemd units are where they belong (systemd-analyze verifies the units), and
# removing the packages leaves nothing.
# Needs root (debootstrap, chroot). Prints one `ok: …` line per check; exits non-zero at the
# first failure, with the reason. Removes everything it created.
set -euo pipefail
dir="${1:?usage: Tools/package-check.sh DIR-WITH-DEBS}"
say() { printf 'package-check: %s\n' "$*" >&2; }
die() { say "FAILED: $*"; exit 1; }
ok() { printf 'ok: %s\n' "$*"; }

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap and chroot)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (Tools/install-deps.sh --with-packaging)"
host_deb=$(ls -t "$dir"/zrc-host_*.deb 2>/dev/null | head -1)
ctl_deb=$(ls -t "$dir"/zrc-ctl_*.deb 2>/dev/null | head -1)
[[ -n "$host_deb" && -n "$ctl_deb" ]] || die "no zrc-host_*.deb and zrc-ctl_*.deb in $dir (run Tools/package.sh)"

# This machine's Debian release and mirror (deb822 `URIs:` or one-line `deb` sources).
. /etc/os-release
suite="${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}"
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p; s/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
  | grep -v security | head -1 || true)
[[ -n "$mirror" ]] || die "no Debian mirror found in /etc/apt/sources.list*"

root=$(mktemp -d /tmp/zrc-package-root.XXXXXX)
mounted=()
cleanup() {
  local m
  for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT

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
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
cp /etc/resolv.conf "$root/etc/resolv.conf"
[[ ! -e "$root/usr/lib/swift" ]] && ! in_root sh -c 'command -v swift' >/dev/null || die "the fresh root has a Swift toolchain"
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
  [[ -s "$root/usr/share/man/man1/$program.1.gz" ]] && zcat "$root/usr/share/man/man1/$program.1.gz" | grep -q "^\.Sh SYNOPSIS" \
    || die "$program: no man page"
  ok "$program: man page"
  [[ -s "$root/usr/share/bash-completion/completions/$program" && -s "$root/usr/share/zsh/vendor-completions/_$program" \
    && -s "$root/usr/share/fish/vendor_completions.d/$program.fish" ]] || die "$program: completions missing"
  in_root bash -n "/usr/share/bash-completion/completions/$program" || die "$program: the bash completion does not parse"
  ok "$program: bash, zsh and fish completions"
done
for unit in zrc-host.service zrc-host-virtual.service; do
  file="$root/usr/lib/systemd/user/$unit"
  [[ -s "$file" ]] || die "no $unit"
  grep -q '^ExecStart=/usr/bin/zrc-host serve' "$file" && grep -q '^Restart=on-failure' "$file" || die "$unit: no ExecStart or Restart"
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

in_root apt-get remove -y -q zrc-host zrc-ctl >>"$root/tmp/apt.log" 2>&1 || die "apt-get remove failed"
left=$(ls "$root/usr/bin/zrc-host" "$root/usr/bin/zrc-ctl" "$root/usr/lib/systemd/user/zrc-host.service" 2>/dev/null || true)
[[ -z "$left" ]] || die "files left after removal: $left"
ok "removing the packages leaves none of their files"
