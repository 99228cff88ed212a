#!/usr/bin/env bash
# Resumable uploads (/tus) through a real tus client, tuspy from PyPI, against the real binary.
# Part of `make test`.
#
#   bash tests/tus/run.sh
#
# 1. a venv at ${MEDIAFORGE_CACHE:-~/.cache/mediaforge}/venv-tus with a pinned tuspy (kept);
# 2. the debug binary on a free loopback port, in-memory database, a plan of 1 GB files;
# 3. a 300 MB file of raw video from ffmpeg's lavfi source;
# 4. tests/tus/client.py: the upload in 8 MB chunks by one client process, killed mid-way, then
#    resumed by another from the server's offset; the stored file's bytes compared with the
#    source's; the protocol's refusals (offset, checksum, size, version, termination); and an
#    abandoned upload removed with its file record once it expires.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-target}
case $TARGET in /*) ;; *) TARGET=$ROOT/$TARGET ;; esac
CACHE=${MEDIAFORGE_CACHE:-$HOME/.cache/mediaforge}
VENV=$CACHE/venv-tus
TUSPY_VERSION=1.1.0
WASM=${MEDIAFORGE_TEST_WASM:-$ROOT/plugins/dist}
BIN=$TARGET/debug/mediaforge
KEY=key_tus_test_0123456789
started=$(date +%s)

mkdir -p "$CACHE"
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('tuspy') != '$TUSPY_VERSION')" 2>/dev/null; then
    if ! python3 -m venv "$VENV" 2>/dev/null; then
        SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/pip" install -q "tuspy==$TUSPY_VERSION"
fi

cargo build -q --workspace --bins

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mediaforge-tus.XXXXXX")
PIDS=()
cleanup() {
    local status=$?
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [ "$status" != 0 ] && [ -f "$WORK/server.log" ]; then
        echo "--- server log (last 40 lines) ---"
        tail -n 40 "$WORK/server.log"
    fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT INT TERM

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
BASE=http://127.0.0.1:$PORT
cat >"$WORK/mediaforge.toml" <<TOML
[server]
listen = "127.0.0.1:$PORT"
public_url = "$BASE"
data_dir = "$WORK/data"

[database]
url = "mem://"

[storage]
path = "$WORK/files"
# Short, so the test sees an abandoned upload removed (every PATCH moves the expiry on).
resumable_ttl_s = 5
sweep_interval_s = 1

[plans.big]
max_file_size_mb = 1024
monthly_quota_gb = 100
max_storage_gb = 10

[[accounts]]
name = "uploader"
plan = "big"
api_key = "$KEY"

[[accounts]]
name = "other"
plan = "big"
api_key = "${KEY}_other"

[plugins]
default_dir = "$WASM"
cache_dir = "$CACHE/tus-plugin-cache"
TOML
MEDIAFORGE_LOG=info "$BIN" serve --config "$WORK/mediaforge.toml" >"$WORK/server.out" 2>"$WORK/server.log" &
PIDS+=($!)
for _ in $(seq 1 240); do
    curl -sf "$BASE/healthz" >/dev/null 2>&1 && break
    kill -0 "${PIDS[0]}" 2>/dev/null || { echo "the server exited" >&2; exit 1; }
    sleep 0.5
done

# 300 MB of raw 720p video (a tus client sends any bytes; these are media, as users' are).
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=25 \
    -frames:v 217 -c:v rawvideo -pix_fmt yuv420p -f nut "$WORK/big.nut"

"$VENV/bin/python" "$ROOT/tests/tus/client.py" "$BASE" "$KEY" "$WORK/big.nut" "$WORK"
echo "tests/tus/run.sh: finished in $(( $(date +%s) - started )) s"
