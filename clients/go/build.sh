#!/usr/bin/env bash
# Builds the Go kit into one runnable command, bin/rookery-sample-bot.
# Cached: each step runs only when its inputs changed since the last build (stamp files), so a
# second run with nothing changed does no work. `./build.sh --force` rebuilds everything.
#
# Code generation uses buf with the protoc-gen-go and protoc-gen-go-grpc versions pinned in
# go.mod's tool block (built into .bin/). buf is taken from $BUF, the PATH, or the repository's
# node_modules (`make setup`); failing those, protoc on the PATH; failing that, buf is built
# with `go install` at the version below.
set -euo pipefail
cd "$(dirname "$0")"
KIT=$PWD
PROTO_DIR=${ROOKERY_PROTO_DIR:-$KIT/../../proto}
BUF_VERSION=v1.75.0
GO_PREFIX=rookery/kit/gen

if [[ "${1:-}" == "--force" ]]; then rm -f .stamp-*; fi

# stale STAMP INPUT... : true when STAMP is missing or any input file is newer than it.
stale() {
  local stamp=$1; shift
  [[ -e $stamp ]] || return 0
  [[ -n "$(find "$@" -newer "$stamp" -type f -print -quit 2>/dev/null)" ]]
}

command -v go >/dev/null || { echo "build.sh: go (1.26 or later) is required" >&2; exit 1; }

# 1. The code generator plugins, at the versions pinned in go.mod.
if stale .stamp-tools go.mod go.sum; then
  echo "[go-kit] go install tool (protoc-gen-go, protoc-gen-go-grpc)"
  GOBIN=$KIT/.bin go install tool ||
    { echo "[go-kit] go install tool failed; once more" >&2; sleep 2; GOBIN=$KIT/.bin go install tool; }
  touch .stamp-tools
fi

find_buf() {
  if [[ -n "${BUF:-}" ]]; then echo "$BUF"; return; fi
  if command -v buf >/dev/null; then command -v buf; return; fi
  if [[ -x $KIT/../../node_modules/.bin/buf ]]; then echo "$KIT/../../node_modules/.bin/buf"; return; fi
  if [[ -x $KIT/.bin/buf ]]; then echo "$KIT/.bin/buf"; return; fi
  if command -v protoc >/dev/null; then return; fi
  echo "[go-kit] go install buf@$BUF_VERSION (no buf or protoc found)" >&2
  GOBIN=$KIT/.bin go install "github.com/bufbuild/buf/cmd/buf@$BUF_VERSION" >&2
  echo "$KIT/.bin/buf"
}

# 2. Messages and gRPC client generated from proto/ into gen/ (not committed). A kit copied out
# of the repository keeps the gen/ it was built with; without it, ROOKERY_PROTO_DIR must name the
# contract.
if [[ ! -d $PROTO_DIR ]]; then
  [[ -d gen/rookery/v1 ]] || {
    echo "build.sh: no contract at $PROTO_DIR and no generated code in gen/: set ROOKERY_PROTO_DIR to Rookery's proto/ folder" >&2
    exit 1
  }
elif stale .stamp-gen .stamp-tools buf.gen.yaml "$PROTO_DIR"; then
  BUF_BIN=$(find_buf)
  if [[ -n "$BUF_BIN" ]]; then
    echo "[go-kit] buf generate"
    "$BUF_BIN" generate "$PROTO_DIR" --template buf.gen.yaml
  else
    echo "[go-kit] protoc"
    rm -rf gen && mkdir -p gen
    mapfile -t files < <(cd "$PROTO_DIR" && find rookery -name '*.proto' | sort)
    maps=()
    for f in "${files[@]}"; do maps+=("M$f=$GO_PREFIX/$(dirname "$f")"); done
    go_opts=$(IFS=,; echo "paths=source_relative,${maps[*]}")
    protoc -I "$PROTO_DIR" \
      --plugin=protoc-gen-go=.bin/protoc-gen-go --go_out=gen --go_opt="$go_opts" \
      --plugin=protoc-gen-go-grpc=.bin/protoc-gen-go-grpc --go-grpc_out=gen --go-grpc_opt="$go_opts" \
      "${files[@]/#/$PROTO_DIR/}"
  fi
  touch .stamp-gen
fi

# 3. The sample bot.
if stale .stamp-build .stamp-gen go.mod go.sum rookery samplebot cmd; then
  echo "[go-kit] go build"
  go build -o bin/rookery-sample-bot ./cmd/rookery-sample-bot
  touch .stamp-build
fi
