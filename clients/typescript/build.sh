#!/usr/bin/env bash
# Builds the TypeScript kit into one runnable command, dist/rookery-sample-bot.
# Cached: each step runs only when its inputs changed since the last build (stamp files), so a
# second run with nothing changed does no work. `./build.sh --force` rebuilds everything.
set -euo pipefail
cd "$(dirname "$0")"
KIT=$PWD
PROTO_DIR=${ROOKERY_PROTO_DIR:-$KIT/../../proto}

if [[ "${1:-}" == "--force" ]]; then rm -f .stamp-*; fi

# stale STAMP INPUT... : true when STAMP is missing or any input file is newer than it.
stale() {
  local stamp=$1; shift
  [[ -e $stamp ]] || return 0
  [[ -n "$(find "$@" -newer "$stamp" -type f -print -quit 2>/dev/null)" ]]
}

command -v node >/dev/null || { echo "build.sh: node (20 or later) is required" >&2; exit 1; }
command -v npm >/dev/null || { echo "build.sh: npm is required" >&2; exit 1; }

# 1. Dependencies, exactly as pinned in package-lock.json.
if stale .stamp-deps package.json package-lock.json; then
  echo "[ts-kit] npm ci"
  npm ci --no-audit --no-fund --loglevel=error --prefer-offline ||
    { echo "[ts-kit] npm ci failed; once more" >&2; sleep 2; npm ci --no-audit --no-fund --loglevel=error; }
  touch .stamp-deps
fi

# 2. Messages and gRPC clients generated from proto/ by buf with the local ts-proto plugin. A kit
# copied out of the repository keeps the src/gen/ it was built with; without it,
# ROOKERY_PROTO_DIR must name the contract.
if [[ ! -d $PROTO_DIR ]]; then
  [[ -d src/gen/rookery/v1 ]] || {
    echo "build.sh: no contract at $PROTO_DIR and no generated code in src/gen/: set ROOKERY_PROTO_DIR to Rookery's proto/ folder" >&2
    exit 1
  }
elif stale .stamp-gen .stamp-deps buf.gen.yaml "$PROTO_DIR"; then
  echo "[ts-kit] buf generate"
  node_modules/.bin/buf generate "$PROTO_DIR" --template buf.gen.yaml
  touch .stamp-gen
fi

# 3. Compile (library, sample bot and tests) and write the launcher.
if stale .stamp-build .stamp-gen tsconfig.json src test; then
  echo "[ts-kit] tsc"
  node_modules/.bin/tsc -p .
  cat > dist/rookery-sample-bot <<'SH'
#!/bin/sh
# The sample bot. Options: --help.
exec node "$(dirname "$0")/src/main.js" "$@"
SH
  chmod +x dist/rookery-sample-bot
  touch .stamp-build
fi
