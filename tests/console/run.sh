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
#    kept under $CONSOLE_ARTIFACTS (default: the cache's console-artifacts/, path printed); the
#    last step uploads 300 MB of noise made at test time (a second account's plan takes it),
#    kills the browser mid-way and resumes in a new one.
# Prints `N passed, M failed`; the server is stopped on exit and its log printed on failure.
set -euo pipefail

source "$(dirname "$0")/../lib.sh"
VENV=$CACHE/venv-console
# 4.52.0 requires a certifi release that pip cannot find here yet.
SELENIUM_VERSION=4.51.0
ARTIFACTS=${CONSOLE_ARTIFACTS:-$CACHE/console-artifacts}
KEY=key_console_0123456789
# An account whose plan takes the 300 MB upload the browser is killed in.
BIG_KEY=key_console_big_0123456789

# ---- 1. the browser and the venv ------------------------------------------------------------
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "installing: chromium chromium-driver"
    mf_apt chromium chromium-driver
fi
mf_venv "$VENV" selenium "$SELENIUM_VERSION"

# A real player for the playback URLs: hls.js from the npm registry, pinned, kept in the cache.
HLSJS_VERSION=1.6.15
PLAYERS=$CACHE/npm-players
if [ ! -f "$PLAYERS/node_modules/hls.js/dist/hls.min.js" ] \
    || ! grep -q "\"version\": \"$HLSJS_VERSION\"" "$PLAYERS/node_modules/hls.js/package.json"; then
    command -v npm >/dev/null || mf_apt npm
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
mf_build
mf_workdir console

PORT=$(mf_free_port)
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

[plans.big]
max_file_size_mb = 400
monthly_quota_gb = 10

[[accounts]]
name = "console"
plan = "free"
api_key = "$KEY"

[[accounts]]
name = "console-big"
plan = "big"
api_key = "$BIG_KEY"

[limits]
process_timeout_s = 60

[plugins]
default_dir = "$WASM"
cache_dir = "$CACHE/console-plugin-cache"
EOF
mf_serve "$WORK/mediaforge.toml" "$BASE"

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
    --big-key "$BIG_KEY" \
    --server-log "$WORK/server.log"
result=$?
set -e
echo "tests/console/run.sh: finished in $(( $(date +%s) - started )) s; screenshots in $ARTIFACTS"
exit $result
