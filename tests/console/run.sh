#!/usr/bin/env bash
# The web console (/console) in a real headless browser: Debian's chromium and chromium-driver,
# driven by Selenium for Python, against the real binary. Part of `make test`.
#
#   bash tests/console/run.sh
#
# 1. chromium and chromium-driver (apt, when missing) and a venv at
#    ${MEDIAFORGE_CACHE:-~/.cache/mediaforge}/venv-console with a pinned selenium from PyPI;
# 2. the debug binary ($CARGO_TARGET_DIR/debug/mediaforge, brought up to date) on a free loopback
#    port with an in-memory database, a temporary data directory and the default plugins
#    ($MEDIAFORGE_TEST_WASM, else plugins/dist);
# 3. test media made with ffmpeg's lavfi sources;
# 4. tests/console/console_test.py: the console's flow step by step, a screenshot of each step
#    kept under $CONSOLE_ARTIFACTS (default: the cache's console-artifacts/, path printed).
# Prints `N passed, M failed`; the server is stopped on exit and its log printed on failure.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-target}
case $TARGET in /*) ;; *) TARGET=$ROOT/$TARGET ;; esac
CACHE=${MEDIAFORGE_CACHE:-$HOME/.cache/mediaforge}
VENV=$CACHE/venv-console
# 4.52.0 requires a certifi release that pip cannot find here yet.
SELENIUM_VERSION=4.51.0
WASM=${MEDIAFORGE_TEST_WASM:-$ROOT/plugins/dist}
BIN=$TARGET/debug/mediaforge
ARTIFACTS=${CONSOLE_ARTIFACTS:-$CACHE/console-artifacts}
KEY=key_console_0123456789
started=$(date +%s)
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

# ---- 1. the browser and the venv ------------------------------------------------------------
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "installing: chromium chromium-driver"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi
mkdir -p "$CACHE"
if ! "$VENV/bin/python" -c "import selenium, sys; sys.exit(selenium.__version__ != '$SELENIUM_VERSION')" 2>/dev/null; then
    if ! python3 -m venv "$VENV" 2>/dev/null; then
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/pip" install -q "selenium==$SELENIUM_VERSION"
fi

# A real player for the playback URLs: hls.js from the npm registry, pinned, kept in the cache.
HLSJS_VERSION=1.6.15
PLAYERS=$CACHE/npm-players
if [ ! -f "$PLAYERS/node_modules/hls.js/dist/hls.min.js" ] \
    || ! grep -q "\"version\": \"$HLSJS_VERSION\"" "$PLAYERS/node_modules/hls.js/package.json"; then
    if ! command -v npm >/dev/null; then
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null
    fi
    mkdir -p "$PLAYERS"
    npm install --silent --no-audit --no-fund --prefix "$PLAYERS" "hls.js@$HLSJS_VERSION" >/dev/null
fi
# And dash.js for DASH manifests, pinned the same way.
DASHJS_VERSION=4.7.4
if [ ! -f "$PLAYERS/node_modules/dashjs/dist/dash.all.min.js" ] \
    || ! grep -q "\"version\": \"$DASHJS_VERSION\"" "$PLAYERS/node_modules/dashjs/package.json"; then
    mkdir -p "$PLAYERS"
    npm install --silent --no-audit --no-fund --prefix "$PLAYERS" "hls.js@$HLSJS_VERSION" "dashjs@$DASHJS_VERSION" >/dev/null
fi

# ---- 2. the server --------------------------------------------------------------------------
# The same command as `make test`, so a no-op there.
cargo build -q --workspace --bins
for world in command_builder translator webhook_formatter; do
    [ -f "$WASM/$world.wasm" ] || { echo "$WASM/$world.wasm is missing: run make plugins" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mediaforge-console.XXXXXX")
SERVER_PID=""
cleanup() {
    local status=$?
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    if [ "$status" != 0 ] && [ -f "$WORK/server.log" ]; then
        echo "--- server log (last 60 lines) ---"
        tail -n 60 "$WORK/server.log"
    fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT INT TERM

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
BASE=http://127.0.0.1:$PORT
cat >"$WORK/mediaforge.toml" <<EOF
[server]
listen = "127.0.0.1:$PORT"
public_url = "$BASE"
data_dir = "$WORK/data"

[database]
url = "mem://"

[storage]
path = "$WORK/files"

[plans.free]
max_file_size_mb = 20
monthly_quota_gb = 10

[[accounts]]
name = "console"
plan = "free"
api_key = "$KEY"

[limits]
process_timeout_s = 60

[plugins]
default_dir = "$WASM"
cache_dir = "$CACHE/console-plugin-cache"
EOF
MEDIAFORGE_LOG=info "$BIN" serve --config "$WORK/mediaforge.toml" >"$WORK/server.out" 2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 1 240); do
    curl -sf "$BASE/healthz" >/dev/null 2>&1 && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "the server exited" >&2; exit 1; }
    sleep 0.5
done
curl -sf "$BASE/healthz" >/dev/null || { echo "the server did not answer /healthz" >&2; exit 1; }

# ---- 3. test media --------------------------------------------------------------------------
# A short clip to upload, and a longer one whose job runs long enough to show progress.
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc=size=320x240:rate=25:duration=2 \
    -f lavfi -i sine=frequency=440:duration=2 -c:v libx264 -preset ultrafast -pix_fmt yuv420p \
    -c:a aac -shortest "$WORK/clip.mp4"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=640x480:rate=25:duration=12 \
    -c:v libx264 -preset ultrafast -pix_fmt yuv420p "$WORK/long.mp4"

# ---- 4. the browser run ---------------------------------------------------------------------
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
set +e
"$VENV/bin/python" "$ROOT/tests/console/console_test.py" \
    --base "$BASE" --key "$KEY" --media "$WORK" --artifacts "$ARTIFACTS" \
    --hlsjs "$PLAYERS/node_modules/hls.js/dist/hls.min.js" \
    --dashjs "$PLAYERS/node_modules/dashjs/dist/dash.all.min.js" \
    --server-log "$WORK/server.log"
result=$?
set -e
echo "tests/console/run.sh: finished in $(( $(date +%s) - started )) s; screenshots in $ARTIFACTS"
exit $result
