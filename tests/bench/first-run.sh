#!/usr/bin/env bash
# `make bench-build`: a newcomer's first run, timed. Clones this repository's HEAD into a fresh
# directory, builds it with an empty target directory exactly as `make run` does, starts the
# server and waits for /healthz. Prints the build time, the time to /healthz and cargo's
# --timings summary of the host build. Takes as long as it measures (15 minutes or more on
# 2 cores): it is a benchmark, never part of `make test`.
set -euo pipefail
repo=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
work=$(mktemp -d "${TMPDIR:-/tmp}/mediaforge-first-run.XXXXXX")
# The server is stopped and waited for before its data directory goes.
trap 'kill "${pid:-}" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
git clone -q "$repo" "$work/src"
export CARGO_TARGET_DIR="$work/target"
cd "$work/src"
start=$(date +%s)
make build HOST_FLAGS=--timings > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
built=$(date +%s)
# Port 0 picks a free port; the server prints the address it took (with its scheme).
sed -i 's/^listen = .*/listen = "127.0.0.1:0"/' config/mediaforge.toml
"$CARGO_TARGET_DIR/release/mediaforge" serve --config config/mediaforge.toml > "$work/serve.log" 2>&1 &
pid=$!
until addr=$(sed -n 's/^mediaforge listening on //p' "$work/serve.log" | head -1) && [ -n "$addr" ]; do
  kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log"; exit 1; }
  sleep 0.1
done
until curl -sf "$addr/healthz" > /dev/null; do sleep 0.1; done
ready=$(date +%s)
# The release build serves its OpenAPI document and stops cleanly on SIGTERM (the tests run the
# debug build; a miscompiled release once closed this request and aborted at shutdown).
curl -sf "$addr/openapi.json" | python3 -c 'import json, sys; json.load(sys.stdin)["paths"]["/tus"]' \
  || { echo "the release server did not serve /openapi.json"; exit 1; }
kill "$pid"; wait "$pid" || { echo "the release server did not stop cleanly: exit $?"; tail -3 "$work/serve.log"; exit 1; }
pid=
echo "first run on $(nproc) cores: build $((built - start)) s, /healthz after $((ready - start)) s" \
  "($((ready - start)) s = $(((ready - start) / 60)) min $(((ready - start) % 60)) s)"
# The slowest units of the host build, from cargo's own record of it.
python3 - "$CARGO_TARGET_DIR"/cargo-timings/cargo-timing.html <<'PY'
import json, re, sys
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", open(sys.argv[1]).read(), re.S).group(1))
units.sort(key=lambda u: -u["duration"])
print(f"{len(units)} units, {sum(u['duration'] for u in units) / 60:.1f} CPU-min; the slowest:")
for u in units[:12]:
    print(f"  {u['duration']:6.0f} s  {u['name']} {u['version']}")
PY
