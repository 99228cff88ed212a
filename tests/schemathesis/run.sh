#!/usr/bin/env bash
# Schemathesis against the live server: every operation of /openapi.json, called under /v1 with a
# valid key, must never answer 5xx and must answer only what the document says (status codes,
# content types, body schemas). Part of `make test`.
#
#   bash tests/schemathesis/run.sh [more schemathesis run options, e.g. --report har]
#
# 1. a venv at ${MEDIAFORGE_CACHE:-~/.cache/mediaforge}/schemathesis-venv with a pinned
#    schemathesis from PyPI (kept and reused);
# 2. the debug binary ($CARGO_TARGET_DIR/debug/mediaforge, brought up to date) on a free loopback
#    port with an in-memory database, a temporary data directory and the default plugins
#    ($MEDIAFORGE_TEST_WASM, else plugins/dist);
# 3. test data the fuzzer could not make itself: a directory with a small clip, a finished job
#    and a half-sent tus upload. Their ids are offered to the generator (a dictionary drawn half
#    of the time), so operations on existing files, directories, jobs and uploads are reached,
#    not only their 404s;
# 4. `schemathesis run` with a bounded number of examples per operation (SCHEMATHESIS_EXAMPLES,
#    default 100) and a fixed seed (SCHEMATHESIS_SEED; `random` for a new one each run).
# The server is stopped on exit; its log is printed when the run fails.
set -euo pipefail

source "$(dirname "$0")/../lib.sh"
VENV=$CACHE/schemathesis-venv
SCHEMATHESIS_VERSION=4.32.5
EXAMPLES=${SCHEMATHESIS_EXAMPLES:-100}
SEED=${SCHEMATHESIS_SEED:-20261122}
KEY=key_schemathesis_0123456789

# ---- 1. the venv ----------------------------------------------------------------------------
mf_venv "$VENV" schemathesis "$SCHEMATHESIS_VERSION"
"$VENV/bin/schemathesis" --version

# ---- 2. the server --------------------------------------------------------------------------
mf_build
mf_workdir schemathesis 80

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
# Tenant buckets on, so POST /credentials and the tasks' export are exercised.
credentials_key = "q8Xr3m0mFq4s6xM0eR1k2p7T9vY5bW3nL8cJ2hD4fA0="

[plans.pro]
max_file_size_mb = 20
monthly_quota_gb = 100

[[accounts]]
name = "schemathesis"
plan = "pro"
api_key = "$KEY"

# Generated tasks that pass the policy must not keep ffmpeg busy.
[limits]
process_timeout_s = 30
probe_timeout_s = 20

[plugins]
default_dir = "$WASM"
cache_dir = "$CACHE/schemathesis-plugin-cache"
EOF
mf_serve "$WORK/mediaforge.toml" "$BASE"

# ---- 3. test data ---------------------------------------------------------------------------
api() { # api METHOD PATH [JSON]: the response body; fails on a non-2xx status
    curl -sf -X "$1" "$BASE/v1$2" -H "Authorization: Basic $KEY" \
        -H 'content-type: application/json' ${3:+-d "$3"}
}
field() { python3 -c "import json,sys; v=json.load(sys.stdin)
for k in sys.argv[1].split('.'): v=v[k]
print(v)" "$1"; }

ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc=size=160x120:rate=10:duration=1 \
    -f lavfi -i sine=frequency=440:duration=1 -c:v libx264 -preset ultrafast -pix_fmt yuv420p \
    -c:a aac -shortest "$WORK/clip.mp4"
DIR=$(api POST /directory '{"ttl": 3600}' | field directory.id)
for name in clip.mp4 spare.mp4; do
    url=$(api POST /file "{\"file_name\": \"$name\", \"dir_id\": \"$DIR\"}" | field upload.url)
    curl -sf -X PUT --data-binary "@$WORK/clip.mp4" "$url" >/dev/null
done
JOB=$(api POST /ffmpeg/process/async "{\"task\": {\"inputs\": [{\"file_path\": \"$DIR/clip.mp4\"}], \"outputs\": [{\"file\": \"small.mp4\", \"options\": [\"-c:v\", \"libx264\", \"-preset\", \"ultrafast\"]}]}}" | field job_id)
for _ in $(seq 1 120); do
    status=$(api GET "/job/$JOB" | field status)
    [ "$status" = completed ] && break
    [ "$status" = failed ] && { echo "the seed job failed" >&2; exit 1; }
    sleep 0.5
done
# And a job that failed (the mp3 muxer takes no AAC): GET /job/{id} shows its error.
FAILED=$(api POST /ffmpeg/process/async "{\"task\": {\"inputs\": [{\"file_path\": \"$DIR/clip.mp4\"}], \"outputs\": [{\"file\": \"bad.mp3\", \"options\": [\"-c:a\", \"aac\"]}]}}" | field job_id)
# A resumable upload half sent, so HEAD, PATCH and DELETE /tus/{tus_id} reach one that exists.
TUS=$(curl -sf -D - -o /dev/null -X POST "$BASE/v1/tus" -H "Authorization: Basic $KEY" \
    -H 'Tus-Resumable: 1.0.0' -H 'Upload-Length: 1000' \
    -H "Upload-Metadata: filename $(printf half.bin | base64)" \
    -H 'Content-Type: application/offset+octet-stream' --data-binary "$(head -c 500 /dev/zero | tr '\0' x)" |
    sed -n 's|^[Ll]ocation: .*/tus/\([A-Za-z0-9_-]*\).*|\1|p')
[ -n "$TUS" ] || { echo "the seed upload was not created" >&2; exit 1; }
echo "test data: directory $DIR (clip.mp4, spare.mp4, small.mp4), jobs $JOB ($status), $FAILED, upload $TUS"

# tus bodies are raw bytes under the protocol's own media type: sent as octet-streams are.
cat >"$WORK/tus_hooks.py" <<'EOF_HOOKS'
import schemathesis
schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")
EOF_HOOKS

# Known values, drawn for these fields some of the time (random ones the rest): ids that exist,
# instructions the translator understands, options the policy allows. Only DELETE /file may
# delete, and only spare.mp4 (the others stay for the rest of the run). No URL is offered and
# the document gives URL fields no format or examples, so generated file_path and webhook_url
# values are not https URLs the server would fetch or call back.
cat >"$WORK/schemathesis.toml" <<EOF
hooks = "tus_hooks"

[dictionaries.dirs]
values = ["$DIR"]
[dictionaries.files]
values = ["clip.mp4", "small.mp4"]
[dictionaries.spare]
values = ["spare.mp4"]
[dictionaries.paths]
values = ["$DIR/clip.mp4", "$DIR/small.mp4"]
[dictionaries.jobs]
values = ["$JOB", "$FAILED"]
[dictionaries.uploads]
values = ["$TUS"]

[parameters]
"path.dir_id" = { dictionary = "dirs", probability = 0.5 }
"path.job_id" = { dictionary = "jobs", probability = 0.5 }
"path.tus_id" = { dictionary = "uploads", probability = 0.5 }
"query.status" = { dictionary = "statuses", probability = 0.5 }
"body.dir_id" = { dictionary = "dirs", probability = 0.5 }
"body.output_dir_id" = { dictionary = "dirs", probability = 0.3 }
"body.file_path" = { dictionary = "paths", probability = 0.5 }
"body.inputs[*].file_path" = { dictionary = "paths", probability = 0.5 }
"body.instructions" = { dictionary = "instructions", probability = 0.5 }
"body.probe.select_streams" = { dictionary = "streams", probability = 0.5 }

[dictionaries.statuses]
values = ["completed", "pending,processing", "failed,cancelled"]
[dictionaries.streams]
values = ["v:0", "a:0", "v"]
[dictionaries.instructions]
values = ["convert to mp3", "make it black and white", "resize to 80 pixels wide", "keep the first half second", "extract the audio as wav", "how long is this video?", "what is the resolution and codec?"]
[dictionaries.outputs]
values = ["out.mp4", "out.mp3", "thumb_%03d.jpg", "out.webm", "out.gif"]
[dictionaries.options]
values = ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", "-an", "-vn", "-t", "0.5", "-vf", "scale=80:-2", "-c:a", "aac", "-b:a", "64k", "-frames:v", "1"]

[[operations]]
include-path-regex = "^/file/(download/)?\\\\{dir_id\\\\}/\\\\{file_name\\\\}$"
include-method = "GET"
parameters = { "path.file_name" = { dictionary = "files", probability = 0.5 } }

[[operations]]
include-path = "/file/{dir_id}/{file_name}"
include-method = "DELETE"
parameters = { "path.file_name" = { dictionary = "spare", probability = 0.3 } }

# Existing inputs for the dry run and for jobs, but not for POST /ffmpeg/process: a generated
# task the policy lets through but ffmpeg itself rejects is a documented 500 there ("FFmpeg
# command failed"), and only a failed job (GET /job/{id}: ok false) for a job.
[[operations]]
include-path = ["/ffmpeg/validate", "/ffmpeg/process/async"]
parameters = { "body.task.inputs[*].file_path" = { dictionary = "paths", probability = 0.5 }, "body.task.output_dir_id" = { dictionary = "dirs", probability = 0.3 }, "body.task.outputs[*].file" = { dictionary = "outputs", probability = 0.5 }, "body.task.outputs[*].options[*]" = { dictionary = "options", probability = 0.7 } }
EOF

# ---- 4. schemathesis ------------------------------------------------------------------------
# Excluded: POST /ffmpeg/run, the deprecated route past its removal date. It answers 410 Gone to
# every request unless [compat] legacy_run is on, so there is nothing to fuzz; its replacement,
# POST /ffmpeg/process, is fuzzed. Everything else is tested.
seed_args=(--seed "$SEED")
[ "$SEED" = random ] && seed_args=()
set +e
# From the scratch directory, so nothing (example database, cache) is written into the clone.
cd "$WORK"
PYTHONPATH="$WORK" "$VENV/bin/schemathesis" --config-file "$WORK/schemathesis.toml" run "$BASE/openapi.json" \
    --url "$BASE/v1" \
    -H "Authorization: Basic $KEY" \
    --exclude-path /ffmpeg/run \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
    --phases examples,coverage,fuzzing,stateful \
    --max-examples "$EXAMPLES" \
    --workers 2 \
    --request-timeout 60 \
    --suppress-health-check too_slow,filter_too_much \
    --generation-database none \
    --no-color \
    "${seed_args[@]}" "$@" 2>&1 | tee "$WORK/schemathesis.log"
result=${PIPESTATUS[0]}
set -e
# "Test cases: N generated, N passed" or "N generated, M found K unique failures, ..."
cases=$(grep -E '^ +[0-9]+ generated' "$WORK/schemathesis.log" | tail -n 1)
passed=$(grep -oE '[0-9]+ passed' <<<"$cases" | grep -oE '[0-9]+' || echo 0)
failed=$(grep -oE '[0-9]+ unique failures?' <<<"$cases" | grep -oE '[0-9]+' || echo 0)
[ "$result" != 0 ] && [ "$failed" = 0 ] && failed=1
echo "tests/schemathesis/run.sh: finished in $(( $(date +%s) - started )) s"
echo "schemathesis: $passed passed, $failed failed"
exit $result
