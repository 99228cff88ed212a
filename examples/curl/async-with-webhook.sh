#!/usr/bin/env bash
# An asynchronous job: upload a video, submit a task with POST /ffmpeg/process/async (with a
# webhook if you give one), poll GET /job/{id} until the job ends, then list your jobs.
#
# usage: async-with-webhook.sh [VIDEO_FILE [WEBHOOK_URL]]
#   VIDEO_FILE   without it (or with ""), a 5-second test clip is made with ffmpeg
#   WEBHOOK_URL  an https URL on a public address that receives the result as a POST
#                (spec section 6); without it the job runs without a callback
# Environment: MEDIAFORGE_URL, MEDIAFORGE_KEY; POLL_TIMEOUT seconds (default 300).
set -euo pipefail
source "$(dirname "$0")/common.sh"

INPUT="$(input_file "${1-}")"
WEBHOOK_URL="${2-}"
POLL_TIMEOUT="${POLL_TIMEOUT:-300}"
NAME="$(basename "$INPUT")"
OUT="${NAME%.*}_360p.webm"
echo "server: $API   input: $INPUT   webhook: ${WEBHOOK_URL:-(none)}"

step "POST /file without dir_id (a temporary directory is made), then PUT the bytes"
INPUT_PATH="$(upload "$INPUT")"
DIR="${INPUT_PATH%%/*}"
info "uploaded as $INPUT_PATH"

step "POST /ffmpeg/process/async: VP9/Opus webm at 360p"
hook=""
if [ -n "$WEBHOOK_URL" ]; then
    hook=",
  \"webhook_url\": $(json_str "$WEBHOOK_URL")"
fi
body=$(cat <<EOF
{
  "task": {
    "inputs": [{"file_path": $(json_str "$INPUT_PATH")}],
    "outputs": [{"file": $(json_str "$OUT"),
                 "options": ["-vf", "scale=-2:360", "-c:v", "libvpx-vp9", "-deadline", "realtime",
                             "-cpu-used", "8", "-b:v", "500k", "-c:a", "libopus", "-b:a", "64k"]}]
  }$hook
}
EOF
)
echo "$body"
# The answer is a 202 at once; the job runs on the server's workers.
submitted="$(api POST /ffmpeg/process/async "$body")"
echo "$submitted"
JOB="$(jget job_id <<<"$submitted")"

step "GET /job/$JOB until it is completed, failed or cancelled"
deadline=$((SECONDS + POLL_TIMEOUT))
last=""
while :; do
    api_call GET "/job/$JOB"
    [ "$HTTP_STATUS" = 200 ] || { cat "$WORK/answer.json" >&2; echo >&2; die "GET /job/$JOB answered $HTTP_STATUS"; }
    status="$(jget status < "$WORK/answer.json")"
    # While processing, the view carries progress (processed media seconds, percent).
    progress="$(jget progress.percent < "$WORK/answer.json" || true)"
    line="$status${progress:+ ($progress %)}"
    [ "$line" != "$last" ] && info "$(date +%T) $line"
    last="$line"
    case "$status" in
        completed | failed | cancelled) break ;;
    esac
    [ "$SECONDS" -lt "$deadline" ] || die "job $JOB still $status after $POLL_TIMEOUT s"
    sleep 1
done
view="$(cat "$WORK/answer.json")"
echo "$view" | jpretty

if [ "$status" != completed ]; then
    die "job $JOB ended $status: $(jget error <<<"$view" || echo 'no error message')"
fi
download "$(jget result.0.download_url <<<"$view")" "$WORK/$OUT" "$(jget result.0.size_bytes <<<"$view")"
if [ -n "$WEBHOOK_URL" ]; then
    # Delivery is retried with back-off; the job view shows how it went.
    info "webhook delivery so far: $(jget webhook <<<"$view" || echo '(not recorded yet)')"
fi

step "GET /jobs?limit=5: your most recent jobs"
jobs="$(api GET "/jobs?limit=5")"
python3 -c '
import json, sys
page = json.load(sys.stdin)
row = "    {:<26} {:<10} {:>3} {:>3} {:<9} {}"
print(row.format("id", "status", "in", "out", "has_error", "created_at"))
for j in page["jobs"]:
    print(row.format(j["id"], j["status"], j["input_count"], j["output_count"],
                     str(j["has_error"]).lower(), j["created_at"]))
print("    pagination:", json.dumps(page["pagination"]))
' <<<"$jobs"

step "DELETE /file/...: the input and the output"
api DELETE "/file/$(file_url "$INPUT_PATH")"
echo
api DELETE "/file/$DIR/$(urlencode "$OUT")"
echo

echo
echo "done: job $JOB completed; usage: $(jget usage <<<"$view")"
