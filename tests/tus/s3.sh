#!/usr/bin/env bash
# Resumable uploads (/tus) on the S3 backend, through tuspy against the real binary: two
# instances sharing one real SurrealDB server and one S3-compatible server (s3s-fs, which checks
# SigV4 and keeps a multipart upload's parts as hidden files beside the bucket). Run by
# tests/tus/run.sh, so part of `make test`.
#
#   bash tests/tus/s3.sh
#
# 1. the venv of run.sh, s3s-fs (tests/servers/install-s3s.sh), the workspace's `surreal`;
# 2. s3s-fs and SurrealDB (in memory) on free loopback ports; instances A and B on both, each
#    with its own data directory;
# 3. a 200 MB file of raw video from ffmpeg's lavfi source;
# 4. tests/tus/s3.py: the upload to A in 3 MB chunks (so PATCHes end between parts and leave
#    tails), the client killed mid-way, resumed against B in chunks of 8 MiB + 12345 bytes; the
#    bytes compared; no instance's disk holding the upload; the instances' peak memory; a wrong
#    checksum (after its parts were sent) refused and the right bytes stored in their place;
#    two PATCHes of one upload at once on A and B (the second waits, then 423; the first, past
#    a lease renewal, stores its bytes); an empty upload; an over-plan Upload-Length refused
#    before any multipart upload starts; termination and expiry leaving no object and no
#    pending multipart upload in the bucket. About a minute (debug build, 2 cores), most of it
#    the 200 MB upload and the waits for the lock and the expiry.
set -euo pipefail

source "$(dirname "$0")/../lib.sh"
VENV=$CACHE/venv-tus
TUSPY_VERSION=1.1.0
KEY=key_tus_s3_test_0123456789

mf_venv "$VENV" tuspy "$TUSPY_VERSION"
mf_build
S3S=$(bash "$ROOT/tests/servers/install-s3s.sh")
SURREAL=$TARGET/debug/surreal
[ -x "$SURREAL" ] || { echo "$SURREAL is missing: cargo build --workspace --bins" >&2; exit 1; }
mf_workdir tus-s3 40

wait_port() {
    for _ in $(seq 1 240); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.25
    done
    echo "$2 did not listen on $1" >&2
    exit 1
}

S3_PORT=$(mf_free_port)
mkdir -p "$WORK/s3/media"
"$S3S" --host 127.0.0.1 --port "$S3_PORT" --access-key tus-test --secret-key tus-test-secret \
    "$WORK/s3" >"$WORK/s3s.log" 2>&1 &
PIDS+=("$!")
DB_PORT=$(mf_free_port)
(cd "$WORK" && exec "$SURREAL" start --no-banner --log warn --username root --password root \
    --bind "127.0.0.1:$DB_PORT" memory) >"$WORK/surreal.log" 2>&1 &
PIDS+=("$!")
wait_port "$S3_PORT" s3s-fs
wait_port "$DB_PORT" surreal

# instance NAME: its config and server, logs in $WORK/NAME.log (and server.log for lib.sh's
# report on failure: both appended there at exit).
instance() {
    local name=$1 port
    port=$(mf_free_port)
    mkdir -p "$WORK/$name"
    cat >"$WORK/$name/mediaforge.toml" <<TOML
[server]
listen = "127.0.0.1:$port"
public_url = "http://127.0.0.1:$port"
data_dir = "$WORK/$name/data"

[database]
url = "ws://127.0.0.1:$DB_PORT"
username = "root"
password = "root"

[storage]
backend = "s3"
# Short, so the test sees an abandoned upload removed (every PATCH moves the expiry on).
resumable_ttl_s = 10
sweep_interval_s = 1

[storage.s3]
bucket = "media"
endpoint = "http://127.0.0.1:$S3_PORT"
region = "us-east-1"
access_key_id = "tus-test"
secret_access_key = "tus-test-secret"
force_path_style = true

[plans.big]
max_file_size_mb = 1024
monthly_quota_gb = 100
max_storage_gb = 10

[[accounts]]
name = "uploader"
plan = "big"
api_key = "$KEY"

[plugins]
default_dir = "$WASM"
cache_dir = "$CACHE/tus-plugin-cache"
TOML
    mf_serve "$WORK/$name/mediaforge.toml" "http://127.0.0.1:$port" "$name"
    eval "${name^^}_BASE=http://127.0.0.1:$port ${name^^}_PID=${PIDS[-1]}"
}
instance a
instance b
trap 'st=$?; cat "$WORK/a.log" "$WORK/b.log" >"$WORK/server.log" 2>/dev/null; (exit $st); mf_cleanup' EXIT INT TERM

# 200 MB of raw 720p video.
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=25 \
    -frames:v 145 -c:v rawvideo -pix_fmt yuv420p -f nut "$WORK/big.nut"

"$VENV/bin/python" "$ROOT/tests/tus/s3.py" "$A_BASE" "$B_BASE" "$KEY" "$WORK/big.nut" "$WORK" \
    "$WORK/s3" media "$A_PID" "$B_PID"
echo "tests/tus/s3.sh: finished in $(( $(date +%s) - started )) s"
