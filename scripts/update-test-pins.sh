#!/usr/bin/env bash
# Re-pins the test environment: resolves `.[local,dev]` afresh in a throw-away venv and writes
# every resolved version into constraints-test.txt, which the README's test command and CI use.
# Users of steer are not affected: pyproject.toml keeps ranges; only the test run is pinned.
# After running it, run the tests; if a snapshot differs only because a dependency renders
# differently, look at the report, then `python -m pytest tests/ui --snapshot-update`.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check -e '.[local,dev]'
{
    echo "# The pinned test environment (pip constraints), used by the README's test command and .ci/run."
    echo "# Regenerate with: bash scripts/update-test-pins.sh"
    "$tmp/venv/bin/python" -m pip freeze --exclude-editable --disable-pip-version-check
} > constraints-test.txt
echo "wrote constraints-test.txt ($(grep -vc '^#' constraints-test.txt) pins)"
