#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh Debian machine:
#   installs the system packages, builds, and runs every test inside a private environment with a
#   real D-Bus session, an unlocked gnome-keyring and an Xvfb display (Tools/with-test-services.sh).
# Exits non-zero on any failure, including a service that cannot be started.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
DIE_PREFIX=""
cd "$REPO_ROOT"

"$(pwd)/Tools/install-deps.sh" --with-test
ZRC_PLAYWRIGHT_PYTHON="$("$(pwd)/Tools/install-playwright.sh")"
export ZRC_PLAYWRIGHT_PYTHON

use_swift_toolchain swift

echo "== build ==" >&2
swift build --build-tests 2>&1 | grep -v "prohibited flag(s): -pthread" || die "build failed"
# The Debian packages (a release build with the Swift runtime linked in), which the package tests
# install into a fresh Debian; it also leaves Tools/zrc.sh's release programs current.
echo "== packages ==" >&2
Tools/package.sh --out "$(pwd)/.build/packages" >/dev/null || die "packaging failed"
export ZRC_PACKAGES_DIR="$REPO_ROOT/.build/packages"
# Installing them into a fresh Debian (debootstrap, apt) is heavy on the disk: it runs here, alone,
# rather than beside the suite's timing-sensitive tests; PackageTests checks what it recorded.
echo "== package check ==" >&2
set +e
Tools/package-check.sh "$ZRC_PACKAGES_DIR" >"$ZRC_PACKAGES_DIR/check.log" 2>&1
echo $? >"$ZRC_PACKAGES_DIR/check.status"
set -e
ZRC_BIN_DIR="$(swift build --show-bin-path)"
export ZRC_BIN_DIR
export ZRC_REPOSITORY="$REPO_ROOT"

echo "== tests ==" >&2
# Swift Testing runs tests in parallel; the end-to-end suites start real processes, each in its own
# directories, so they do not interfere. At most 8 test cases at once: the in-process hosts share
# Swift's cooperative pool (a thread per core) with every running test, and with all ~560 started
# together one CI run saw pairings wait past their 30 s deadline; 8 keeps the suite as fast
# (measured: 120 s either way) with far less queueing in front of each host.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"
exec Tools/with-test-services.sh swift test --skip-build "$@"
