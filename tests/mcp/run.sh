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

source "$(dirname "$0")/../lib.sh"
VENV=$CACHE/venv-mcp
MCP_VERSION=2.3.0
KEY=key_mcp_test_0123456789

# ---- 1. the venv ----------------------------------------------------------------------------
mf_venv "$VENV" mcp "$MCP_VERSION"

# ---- 2. the server --------------------------------------------------------------------------
mf_build
mf_workdir mcp

PORT=$(mf_free_port)
FILES_PORT=$(mf_free_port)
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
mf_serve "$WORK/mediaforge.toml" "$BASE"

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
