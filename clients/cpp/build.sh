#!/usr/bin/env bash
# Builds the C++ kit's sample bot into one runnable command: bin/rookery-cpp-bot.
#   ./build.sh         build (does nothing, not even start CMake, when no input changed)
#   ./build.sh test    also build and run the unit tests (GoogleTest through ctest); skipped, with
#                      the saved log shown, when no input changed since they last passed
# Inputs: CMakeLists.txt, cmake/, include/, src/, tests/ and the contract in ../../proto.
# Needs Debian's cmake, g++, libgrpc++-dev, libprotobuf-dev, protobuf-compiler,
# protobuf-compiler-grpc and (for the tests) libgtest-dev. Parallel jobs: $JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")"
KIT=$PWD
PROTO_DIR=$(cd "${ROOKERY_PROTO_DIR:-$KIT/../../proto}" && pwd)
BIN=$KIT/bin/rookery-cpp-bot
JOBS=${JOBS:-2}

inputs_hash() {
  { find CMakeLists.txt cmake include src tests -type f; find "$PROTO_DIR" -name '*.proto'; } \
    | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1
}
HASH=$(inputs_hash)

# Configures once; only a configure that succeeded is kept. A failed one (a missing package, a
# wrong compiler) leaves a CMakeCache.txt holding what failed: it is removed, so that the next run
# configures afresh instead of building on it.
configure() {
  if [[ ! -f build/.configured || ! -f build/CMakeCache.txt ]]; then
    rm -f build/.configured build/CMakeCache.txt
    echo "[cpp-kit] configuring with CMake (log: build.configure.log)" >&2
    cmake -S . -B build -DROOKERY_PROTO_DIR="$PROTO_DIR" > build.configure.log 2>&1 \
      || { cat build.configure.log; rm -f build/CMakeCache.txt; exit 1; }
    touch build/.configured
  fi
}

# compile TARGET: builds it into build/, its output in build.log, CMake's progress lines ("[ 40%]
# Building CXX object ...") on stderr as they come: the first build compiles the generated gRPC
# code and takes minutes, which would otherwise pass in silence.
compile() {
  echo "[cpp-kit] building $1 with $JOBS jobs (the first build takes minutes; log: build.log)" >&2
  local status
  set +e
  cmake --build build --target "$1" -j "$JOBS" -- --no-print-directory 2>&1 | tee build.log \
    | while IFS= read -r line; do
        if [[ $line == \[*%\]* ]]; then echo "[cpp-kit] $line" >&2; fi
      done
  status=${PIPESTATUS[0]}
  set -e
  [[ $status == 0 ]] || { cat build.log; exit 1; }
}

if [[ ! -x $BIN || ! -f .build.stamp || $(cat .build.stamp) != "$HASH" ]]; then
  configure
  compile rookery-cpp-bot
  mkdir -p bin
  cp build/rookery-cpp-bot "$BIN.tmp" && mv "$BIN.tmp" "$BIN"
  echo "$HASH" > .build.stamp
fi

if [[ ${1:-} == test ]]; then
  if [[ -f .test.stamp && $(cat .test.stamp) == "$HASH" && -f .test.log ]]; then
    cat .test.log
  else
    rm -f .test.stamp
    configure
    compile rookery_kit_tests
    (cd build && ctest --output-on-failure) > .test.log 2>&1 || { cat .test.log; exit 1; }
    cat .test.log
    echo "$HASH" > .test.stamp
  fi
fi
echo "$BIN"
