#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the doctest units, the command-line
# cases, and the differential tests against numpy. Exits non-zero if anything fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tslice_install_missing --test
tslice_build
cd "$tslice_root"
ctest --test-dir build --output-on-failure --timeout 1800 "$@"
