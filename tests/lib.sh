# What the black-box suites of `make test` (tests/*/run.sh) share, sourced after
# `set -euo pipefail`: where things are (ROOT, TARGET, CACHE, WASM, BIN; the working directory
# is ROOT), a pinned Python venv kept in the cache, the binary brought up to date, a scratch
# directory removed on exit with its processes stopped (and the server's log shown when the
# run failed), a free port, and a server started and waited for.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-target}
case $TARGET in /*) ;; *) TARGET=$ROOT/$TARGET ;; esac
CACHE=${MEDIAFORGE_CACHE:-$HOME/.cache/mediaforge}
WASM=${MEDIAFORGE_TEST_WASM:-$ROOT/plugins/dist}
BIN=$TARGET/debug/mediaforge
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
started=$(date +%s)
mkdir -p "$CACHE"

# mf_apt PACKAGE...: Debian packages, installed now.
mf_apt() {
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# mf_venv DIR PACKAGE VERSION: a venv in DIR holding PACKAGE==VERSION, made or updated only
# when it does not.
mf_venv() {
    local venv=$1 package=$2 version=$3
    if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('$package') != '$version')" 2>/dev/null; then
        python3 -m venv "$venv" 2>/dev/null || { mf_apt python3-venv; python3 -m venv "$venv"; }
        "$venv/bin/pip" install -q "$package==$version"
    fi
}

# The binary, up to date (the same command as `make test`, so a no-op there: one package alone
# could resolve features differently and rebuild), and the default plugins it loads.
mf_build() {
    cargo build -q --workspace --bins
    local world
    for world in command_builder translator webhook_formatter; do
        [ -f "$WASM/$world.wasm" ] || { echo "$WASM/$world.wasm is missing: run make plugins" >&2; exit 1; }
    done
}

# mf_workdir TAG [LOG_LINES]: WORK, a scratch directory, removed on exit with every process in
# PIDS stopped; when the run failed, the last LOG_LINES (60) of the server's log are printed.
PIDS=()
mf_workdir() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/mediaforge-$1.XXXXXX")
    LOG_LINES=${2:-60}
    trap mf_cleanup EXIT INT TERM
}

mf_cleanup() {
    local status=$? pid
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [ "$status" != 0 ] && [ -f "$WORK/server.log" ]; then
        echo "--- server log (last $LOG_LINES lines) ---"
        tail -n "$LOG_LINES" "$WORK/server.log"
    fi
    rm -rf "$WORK"
    exit "$status"
}

mf_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# mf_serve CONFIG BASE [NAME]: a server on CONFIG (its log in $WORK/NAME.log, NAME "server"
# unless given; its pid last in PIDS), once BASE/healthz answers.
mf_serve() {
    local name=${3:-server}
    MEDIAFORGE_LOG=info "$BIN" serve --config "$1" >"$WORK/$name.out" 2>"$WORK/$name.log" &
    local pid=$!
    PIDS+=("$pid")
    for _ in $(seq 1 240); do
        curl -sf "$2/healthz" >/dev/null 2>&1 && return 0
        kill -0 "$pid" 2>/dev/null || { tail -20 "$WORK/$name.log" >&2; echo "$name exited" >&2; exit 1; }
        sleep 0.5
    done
    echo "$name did not answer /healthz" >&2
    exit 1
}
