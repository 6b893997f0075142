#!/usr/bin/env bash
# Runs shellcheck over every shell script of the repository's tooling: the files under Tools/
# (Tools/lib/ too), Packaging/ and .ci/ whose name ends in .sh or whose first line runs sh or
# bash. It follows the files they source (-x) and reports every severity, style included.
#
#   Tools/shellcheck.sh [SHELLCHECK-OPTION...]     (e.g. -f tty: each finding with its line)
#
# Prints each finding, one line each (file:line:column: level: message [SCnnnn]), and exits 1 when
# there is any; with none, prints how many scripts it checked and exits 0. A finding that is not
# one is silenced where it is, with `# shellcheck disable=SCnnnn  # why`.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
DIE_PREFIX=""
cd "$REPO_ROOT"
require_tool shellcheck shellcheck

scripts=()
while IFS= read -r -d '' file; do
  first=""
  IFS= read -r first <"$file" 2>/dev/null || true
  if [[ "$file" == *.sh || "$first" =~ ^#!.*[/\ ](ba)?sh([[:space:]]|$) ]]; then scripts+=("$file"); fi
done < <(find Tools Packaging .ci -type f -print0 2>/dev/null | LC_ALL=C sort -z)
((${#scripts[@]})) || die "no shell scripts found under Tools/, Packaging/ or .ci/"

status=0
findings=$(shellcheck -x -f gcc "$@" "${scripts[@]}" 2>&1) || status=$?
if ((status != 0)); then
  printf '%s\n' "$findings"
  # The status shellcheck gave: 1 for findings, another when it could not check at all.
  exit "$status"
fi
echo "shellcheck: ${#scripts[@]} scripts, no findings"
