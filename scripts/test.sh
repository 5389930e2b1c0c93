#!/usr/bin/env bash
# The test command: installs what is missing, builds everything with warnings as errors, starts the
# private MariaDB and Redis, and runs the whole test suite. Extra arguments go to ctest (e.g. -L unit).
# Its exit code is ctest's.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROWPUMP_WERROR=ON
cmake --build build -j2
bash scripts/services.sh start >/dev/null
eval "$(bash scripts/services.sh env)"
exec ctest --test-dir build --output-on-failure -j2 "$@"
