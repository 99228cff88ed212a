#!/usr/bin/env bash
# The plain-language endpoints (beta): POST /ai/ffmpeg/process "convert to webm" and
# POST /ai/ffprobe/analyze "how long is this video?". The server's translator plugin turns the
# words into a task or a probe configuration and returns it next to the result.
#
# usage: natural-language.sh [VIDEO_FILE]
#   Without VIDEO_FILE a 5-second test clip is made with ffmpeg.
# Environment: MEDIAFORGE_URL, MEDIAFORGE_KEY; PROCESS_INSTRUCTIONS and PROBE_INSTRUCTIONS
# replace the two sentences.
set -euo pipefail
source "$(dirname "$0")/common.sh"

INPUT="$(input_file "${1-}")"
PROCESS_INSTRUCTIONS="${PROCESS_INSTRUCTIONS:-convert to webm}"
PROBE_INSTRUCTIONS="${PROBE_INSTRUCTIONS:-how long is this video?}"
echo "server: $API   input: $INPUT"

step "POST /file, then PUT the bytes"
INPUT_PATH="$(upload "$INPUT")"
DIR="${INPUT_PATH%%/*}"
info "uploaded as $INPUT_PATH"

step "POST /ai/ffmpeg/process: \"$PROCESS_INSTRUCTIONS\""
body="{\"inputs\": [{\"file_path\": $(json_str "$INPUT_PATH")}], \"instructions\": $(json_str "$PROCESS_INSTRUCTIONS")}"
echo "$body"
answer="$(api POST /ai/ffmpeg/process "$body")"
info "the task the translator derived (generated_command):"
jget generated_command <<<"$answer" | jpretty | sed 's/^/    /'
info "result:"
jget result <<<"$answer" | jpretty | sed 's/^/    /'
OUTPUTS=()
count="$(jget result <<<"$answer" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')"
for i in $(seq 0 $((count - 1))); do
    file_name="$(jget "result.$i.file_name" <<<"$answer")"
    OUTPUTS+=("$file_name")
    download "$(jget "result.$i.download_url" <<<"$answer")" "$WORK/$file_name" \
        "$(jget "result.$i.size_bytes" <<<"$answer")"
done
[ "$count" -ge 1 ] || die "no output"

step "POST /ai/ffprobe/analyze: \"$PROBE_INSTRUCTIONS\""
body="{\"file_path\": $(json_str "$INPUT_PATH"), \"instructions\": $(json_str "$PROBE_INSTRUCTIONS")}"
echo "$body"
answer="$(api POST /ai/ffprobe/analyze "$body")"
info "the probe configuration the translator derived (generated_probe):"
jget generated_probe <<<"$answer" | jpretty | sed 's/^/    /'
info "result:"
jget result <<<"$answer" | jpretty | sed 's/^/    /'
duration="$(jget result.format.duration <<<"$answer" || true)"
[ -n "$duration" ] && info "answer: $duration seconds"

step "DELETE /file/...: the input and the outputs"
for file_name in "$(basename "$INPUT_PATH")" "${OUTPUTS[@]}"; do
    api DELETE "/file/$DIR/$(urlencode "$file_name")"
    echo
done

echo
echo "done"
