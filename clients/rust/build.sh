#!/usr/bin/env bash
# Builds the Rust kit's sample bot into one runnable command: bin/rookery-rust-bot.
#   ./build.sh         build (does nothing when no input changed since the last build)
#   ./build.sh test    also run the unit tests (cargo test; skipped, with the saved log shown,
#                      when no input changed since they last passed)
# Inputs: src/, build.rs, Cargo.toml, Cargo.lock and the contract in proto/ (a link to ../../proto).
set -euo pipefail
cd "$(dirname "$0")"
KIT=$PWD
PROTO_DIR=${ROOKERY_PROTO_DIR:-$KIT/../../proto}
BIN=$KIT/bin/rookery-rust-bot

inputs_hash() {
  { find src build.rs Cargo.toml Cargo.lock -type f; find "$PROTO_DIR" -name '*.proto'; } \
    | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1
}
HASH=$(inputs_hash)

if [[ ! -x $BIN || ! -f .build.stamp || $(cat .build.stamp) != "$HASH" ]]; then
  command -v cargo >/dev/null || { echo "build.sh: cargo not found (install Rust with rustup)" >&2; exit 1; }
  cargo build --locked --quiet --bin rookery-rust-bot
  mkdir -p bin
  cp target/debug/rookery-rust-bot "$BIN.tmp" && mv "$BIN.tmp" "$BIN"
  echo "$HASH" > .build.stamp
fi

if [[ ${1:-} == test ]]; then
  if [[ -f .test.stamp && $(cat .test.stamp) == "$HASH" && -f .test.log ]]; then
    cat .test.log
  else
    rm -f .test.stamp
    cargo test --locked 2>&1 | tee .test.log
    echo "$HASH" > .test.stamp
  fi
fi
echo "$BIN"
