#!/usr/bin/env bash
# cmake --install of the build tree into a fresh prefix, then a project
# outside TRA (consumer/) configured with find_package(tra), built against
# tra::engine and run; and the installed tra-run runs a deck.
# usage: check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"
source_dir="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source_dir/tests/install/consumer" -B "$work/consumer" -Dtra_DIR="$work/prefix/lib/cmake/tra" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/consumer" -j 2 > "$work/build.log"
"$work/consumer/consumer"
"$work/prefix/bin/tra-run" --version
"$work/prefix/bin/tra-run" "$source_dir/inputs/quickstart.yaml" --output-dir "$work" | tail -1
test -s "$work/quickstart.h5"
echo "check_install: installed, found with find_package(tra), linked, run"
