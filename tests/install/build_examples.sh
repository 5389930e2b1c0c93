#!/usr/bin/env bash
# Installs rowpump from the build tree into OUT/prefix and builds examples/ against the installed package
# into OUT/examples, as a user's project would (find_package(rowpump)): the fixture of the tests that run
# an example program (example_against_package.sh, cursor_example_*.sh).
#
#   tests/install/build_examples.sh BUILD_DIR SOURCE_DIR OUT
set -euo pipefail
build_dir="$1"
source_dir="$2"
out="$3"
rm -rf "$out"
mkdir -p "$out"
cmake --install "$build_dir" --prefix "$out/prefix" >/dev/null
cmake -S "$source_dir/examples" -B "$out/examples" -DCMAKE_PREFIX_PATH="$out/prefix" >/dev/null
cmake --build "$out/examples" -j2 >/dev/null
echo "examples built against the installed package in $out/examples"
