#!/usr/bin/env bash
# The MCP endpoint (/mcp) and the stdio bridge (`mediaforge mcp`) through the official MCP Python
# SDK, against the real binary. Part of `make test`.
#
#   bash tests/mcp/run.sh
#
# 1. a venv at ${MEDIAFORGE_CACHE:-~/.cache/mediaforge}/venv-mcp with a pinned `mcp` from PyPI
#    (kept and reused);
# 2. the debug binary ($CARGO_TARGET_DIR/debug/mediaforge, brought up to date) on a free loopback
#    port with an in-memory database, a temporary data directory and the default plugins
#    ($MEDIAFORGE_TEST_WASM, else plugins/dist); loopback http URLs are allowed, for import_url;
# 3. a small clip (served over plain HTTP from the temporary directory) and a 20 s one, long
#    enough to encode for progress notifications to be sent;
# 4. tests/mcp/client.py, which prints a line per check and closes with `N passed, M failed`.
# The servers are stopped on exit; the server's log is printed when the run fails.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-target}
case $TARGET in /*) ;; *) TARGET=$ROOT/$TARGET ;; esac
CACHE=${MEDIAFORGE_CACHE:-$HOME/.cache/mediaforge}
VENV=$CACHE/venv-mcp
MCP_VERSION=2.3.0
WASM=${MEDIAFORGE_TEST_WASM:-$ROOT/plugins/dist}
BIN=$TARGET/debug/mediaforge
KEY=key_mcp_test_0123456789
started=$(date +%s)

# ---- 1. the venv ----------------------------------------------------------------------------
mkdir -p "$CACHE"
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_VERSION')" 2>/dev/null; then
    if ! python3 -m venv "$VENV" 2>/dev/null; then
        SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/pip" install -q "mcp==$MCP_VERSION"
fi

# ---- 2. the server --------------------------------------------------------------------------
# The same command as `make test`, so a no-op there.
cargo build -q --workspace --bins
for world in command_builder translator webhook_formatter; do
    [ -f "$WASM/$world.wasm" ] || { echo "$WASM/$world.wasm is missing: run make plugins" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mediaforge-mcp.XXXXXX")
PIDS=()
cleanup() {
    local status=$?
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [ "$status" != 0 ] && [ -f "$WORK/server.log" ]; then
        echo "--- server log (last 60 lines) ---"
        tail -n 60 "$WORK/server.log"
    fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
FILES_PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
mkdir -p "$WORK/www"
cat >"$WORK/mediaforge.toml" <<TOML
[server]
listen = "127.0.0.1:$PORT"
public_url = "$BASE"
data_dir = "$WORK/data"

[database]
url = "mem://"

[storage]
path = "$WORK/files"

[net]
allow_private_addresses = true
allow_http = true

[plans.pro]
max_file_size_mb = 20
monthly_quota_gb = 100

[[accounts]]
name = "agent"
plan = "pro"
api_key = "$KEY"

[limits]
process_timeout_s = 30
probe_timeout_s = 20

[plugins]
default_dir = "$WASM"
cache_dir = "$CACHE/mcp-plugin-cache"
TOML
MEDIAFORGE_LOG=info "$BIN" serve --config "$WORK/mediaforge.toml" >"$WORK/server.out" 2>"$WORK/server.log" &
PIDS+=($!)
for _ in $(seq 1 240); do
    curl -sf "$BASE/healthz" >/dev/null 2>&1 && break
    kill -0 "${PIDS[0]}" 2>/dev/null || { echo "the server exited" >&2; exit 1; }
    sleep 0.5
done
curl -sf "$BASE/healthz" >/dev/null || { echo "the server did not answer /healthz" >&2; exit 1; }

# ---- 3. test data ---------------------------------------------------------------------------
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc=size=160x120:rate=10:duration=2 \
    -f lavfi -i sine=frequency=440:duration=2 -c:v libx264 -preset ultrafast -pix_fmt yuv420p \
    -c:a aac -shortest "$WORK/www/clip.mp4"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=320x240:rate=25:duration=20 \
    -c:v libx264 -preset ultrafast -pix_fmt yuv420p "$WORK/www/long.mp4"
(cd "$WORK/www" && exec python3 -m http.server "$FILES_PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
PIDS+=($!)
for _ in $(seq 1 40); do
    curl -sf "http://127.0.0.1:$FILES_PORT/clip.mp4" -o /dev/null && break
    sleep 0.25
done

# ---- 4. the client --------------------------------------------------------------------------
set +e
"$VENV/bin/python" "$ROOT/tests/mcp/client.py" "$BASE" "$KEY" "$BIN" "$WORK/www" \
    "http://127.0.0.1:$FILES_PORT"
result=$?
set -e
echo "tests/mcp/run.sh: finished in $(( $(date +%s) - started )) s"
exit $result
