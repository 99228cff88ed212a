#!/usr/bin/env bash
# `mediaforge plugin new`, end to end: one crate per world from the embedded templates, built
# for wasm32-wasip2, its unit test run natively, then `plugin check` and `plugin run` on a
# sample of docs/plugins/samples/. Part of `make test`, after `make plugins`: the SDK and the
# default plugins' libraries are already built in $CARGO_TARGET_DIR (same profiles), so each
# crate costs seconds.
#
#   bash tests/plugins/new.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
case $TARGET in /*) ;; *) TARGET=$ROOT/$TARGET ;; esac
export CARGO_TARGET_DIR=$TARGET
BIN=$TARGET/debug/mediaforge
HOST=$(rustc -vV | sed -n 's/^host: //p')
SAMPLES=$ROOT/docs/plugins/samples
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
started=$(date +%s)

# As `make test` built it just before (the same command, so nothing is rebuilt there).
(cd "$ROOT" && cargo build -q --workspace --bins)

for pair in command-builder:build-task translator:translate-task webhook-formatter:format-event recipe:recipes; do
  world=${pair%%:*}
  sample=${pair#*:}
  name=new-$world
  (cd "$WORK" && "$BIN" plugin new --world "$world" "$name" --sdk "$ROOT/plugins/sdk" >/dev/null)
  (cd "$WORK/$name" && cargo build -q --release --target wasm32-wasip2 && cargo test -q --target "$HOST" >/dev/null)
  wasm=$TARGET/wasm32-wasip2/release/${name//-/_}.wasm
  wit=0.2.0; case $world in recipe|translator) wit=0.3.0 ;; esac
  "$BIN" plugin check "$wasm" --world "$world" | grep -q "implements the $world world (WIT $wit" \
    || { echo "plugin check refused the $world template"; "$BIN" plugin check "$wasm" --world "$world"; exit 1; }
  answer=$("$BIN" plugin run "$world" "$wasm" "$SAMPLES/$sample.json") \
    || { echo "plugin run failed on the $world template: $answer"; exit 1; }
  echo "$world: generated, built, tested, checked, ran $sample"
done
echo "plugin new: 4 worlds in $(( $(date +%s) - started )) s"
