#!/usr/bin/env bash
# Playwright for Python (PyPI) in a private venv, for the browser viewer's tests and benchmark. It
# drives Debian's own chromium (install-deps.sh --with-test installs it): no browser is
# downloaded. Idempotent; prints the venv's python on stdout.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
DIE_PREFIX=""
VENV="${ZRC_PLAYWRIGHT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/zrc/playwright-1.65.2}"
if ! "$VENV/bin/python" -c "import playwright.sync_api" >/dev/null 2>&1; then
  say "creating $VENV"
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  /usr/bin/python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "playwright==1.65.2" >&2 \
    || die "pip could not install playwright 1.65.2 from PyPI"
fi
echo "$VENV/bin/python"
