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
# Four at a time on two cores: most of the suite waits (on timeouts that must pass, on servers, on
# processes it kills), and at -j2 the cores were idle for 42% of a run (busy 304 of 532 core-s,
# 266 s); at -j4, idle 16-25% (the last measured full run: 194 s, 312 core-s busy).
# A fresh build has no timings from an earlier run, and ctest would start the suite's slowest tests in
# declaration order, some at the very end: a clean clone took 244 s where a build with timings took 220 s.
# tests/ctest_costs.txt holds the slowest tests' seconds from a full run (ctest's own cost-data format,
# regenerate it from build/Testing/Temporary/CTestCostData.txt), so that they start first. It leaves out
# the parameterized tests: ctest writes their names with spaces ("  # GetParam() = ..."), and reads a name
# only up to its first space.
costs=build/Testing/Temporary/CTestCostData.txt
if [[ ! -f "$costs" ]]; then
  mkdir -p "$(dirname "$costs")"
  cp tests/ctest_costs.txt "$costs"
fi
exec ctest --test-dir build --output-on-failure -j4 "$@"
