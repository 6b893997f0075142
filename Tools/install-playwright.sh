#!/usr/bin/env bash
# Playwright for Python (PyPI) in a private venv, for the browser viewer's tests and benchmark. It
# drives Debian's own chromium (install-deps.sh --with-test installs it): no browser is
# downloaded. Idempotent; prints the venv's python on stdout.
set -euo pipefail
VENV="${ZRC_PLAYWRIGHT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/zrc/playwright-1.65.2}"
if ! "$VENV/bin/python" -c "import playwright.sync_api" >/dev/null 2>&1; then
  echo "install-playwright: creating $VENV" >&2
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  /usr/bin/python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "playwright==1.65.2" >&2 \
    || { echo "install-playwright: pip could not install playwright 1.65.2 from PyPI" >&2; exit 1; }
fi
echo "$VENV/bin/python"
