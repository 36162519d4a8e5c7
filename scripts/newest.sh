#!/usr/bin/env bash
# The newest releases that pyproject.toml allows, tried before they become the tested set: builds a
# fresh venv without constraints.txt, runs the fast tier and one browser visit per page, then prints
# each package whose version differs from constraints.txt. docs/maintaining.md ("Newer versions") says how a
# maintainer then moves the set.
#   scripts/newest.sh [VENV] [PYTEST ARGS...]
# VENV: by default a new folder under $TMPDIR (reuse one to skip most of the install). PYTEST ARGS:
# what to test, by default the fast tier (-m "not slow"); the whole suite is plain `-m ""`.
# pip's own configuration still applies (PIP_CONSTRAINT, pip.conf): a cap there is printed first.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-$(mktemp -d)/newest}"
shift || true
[ "$#" -gt 0 ] || set -- -m "not slow"
python3 -m venv "$venv"
py="$venv/bin/python"

echo "== pip's own constraints (they cap 'newest' on this machine):"
files=$("$py" -m pip config list 2>/dev/null | sed -n "s/^[^=]*constraint='\(.*\)'$/\1/p")
for file in $files ${PIP_CONSTRAINT:-}; do
    echo "$file:"; grep -v '^\s*#' "$file" | sed 's/^/    /' || true
done
[ -n "$files${PIP_CONSTRAINT:-}" ] || echo "none"

echo "== installing the newest allowed into $venv"
"$py" -m pip install -q --upgrade --upgrade-strategy eager -e ".[dev]"

status=0
echo "== tests: $*"
"$py" -m pytest -q -p no:cacheprovider "$@" || status=1
echo "== one browser visit per page"
"$py" scripts/visit_pages.py || status=1

echo "== moved against constraints.txt (pinned -> newest)"
"$py" -m pip freeze --exclude-editable | "$py" -c '
import re, sys
from packaging.utils import canonicalize_name as name
def pins(lines):
    found = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            package, version = line.split("==", 1)
            found[name(package)] = version.strip()
    return found
pinned = pins(open("constraints.txt", encoding="utf-8"))
newest = pins(sys.stdin)
for package in sorted(set(pinned) | set(newest)):
    old, new = pinned.get(package), newest.get(package)
    if old is None:
        print(f"{package}: not pinned -> {new}")
    elif new is None:
        continue  # pinned but not installed here: the CUDA libraries beside a CPU build, the build backend
    elif re.sub(r"\+.*", "", new) != old:
        print(f"{package}: {old} -> {new}")
'
exit $status
