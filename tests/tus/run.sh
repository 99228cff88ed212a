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
#    source's; the protocol's refusals (offset, checksum, size, version, termination); bytes a
#    crash lost (the .part file cut) sent again from what the file holds; and an abandoned
#    upload removed with its file record once it expires.
set -euo pipefail

source "$(dirname "$0")/../lib.sh"
VENV=$CACHE/venv-tus
TUSPY_VERSION=1.1.0
KEY=key_tus_test_0123456789

mf_venv "$VENV" tuspy "$TUSPY_VERSION"
mf_build
mf_workdir tus 40

PORT=$(mf_free_port)
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
mf_serve "$WORK/mediaforge.toml" "$BASE"

# 300 MB of raw 720p video (a tus client sends any bytes; these are media, as users' are).
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=25 \
    -frames:v 217 -c:v rawvideo -pix_fmt yuv420p -f nut "$WORK/big.nut"

"$VENV/bin/python" "$ROOT/tests/tus/client.py" "$BASE" "$KEY" "$WORK/big.nut" "$WORK"
echo "tests/tus/run.sh: finished in $(( $(date +%s) - started )) s"

# The same on the S3 backend, with two instances sharing one database and one bucket.
bash "$ROOT/tests/tus/s3.sh"
