#!/usr/bin/env bash
# The basic round trip: make a directory, upload a video, process it synchronously into a
# thumbnail and a small mp4, download both, and delete everything.
#
# usage: upload-process-download.sh [VIDEO_FILE]
#   Without VIDEO_FILE a 5-second test clip is made with ffmpeg. Outputs are saved in
#   $OUT_DIR (default ./mediaforge-output). Reads MEDIAFORGE_URL and MEDIAFORGE_KEY.
set -euo pipefail
source "$(dirname "$0")/common.sh"

OUT_DIR="${OUT_DIR:-./mediaforge-output}"
INPUT="$(input_file "${1-}")"
NAME="$(basename "$INPUT")"
BASE="${NAME%.*}"
echo "server: $API   input: $INPUT"

step "POST /directory: a workspace that expires (with its files) after an hour"
created="$(api POST /directory '{"ttl": 3600}')"
echo "$created"
DIR="$(jget directory.id <<<"$created")"

step "POST /file, then PUT the bytes to the presigned upload URL"
INPUT_PATH="$(upload "$INPUT" "$DIR")"
info "uploaded as $INPUT_PATH"

step "GET /file/$DIR/<name>: what the server stored"
api GET "/file/$(file_url "$INPUT_PATH")" | jpretty

step "POST /ffmpeg/process: a thumbnail and a small mp4, in one ffmpeg run"
THUMB="${BASE}_thumb.jpg"
SMALL="${BASE}_small.mp4"
task=$(cat <<EOF
{
  "task": {
    "inputs": [{"file_path": $(json_str "$INPUT_PATH")}],
    "outputs": [
      {"file": $(json_str "$THUMB"),
       "options": ["-vf", "thumbnail,scale=320:-2", "-frames:v", "1", "-q:v", "4"]},
      {"file": $(json_str "$SMALL"),
       "options": ["-vf", "scale=-2:240", "-c:v", "libx264", "-preset", "veryfast", "-crf", "30",
                   "-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart"]}
    ]
  }
}
EOF
)
echo "$task"
result="$(api POST /ffmpeg/process "$task")"
echo "$result" | jpretty

step "GET /directory/$DIR: the outputs are files of the input's directory now"
api GET "/directory/$DIR" | jpretty

step "Download the outputs into $OUT_DIR"
mkdir -p "$OUT_DIR"
count="$(jget result <<<"$result" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')"
[ "$count" -ge 2 ] || die "expected 2 outputs, got $count"
OUTPUTS=()
for i in $(seq 0 $((count - 1))); do
    file_name="$(jget "result.$i.file_name" <<<"$result")"
    OUTPUTS+=("$file_name")
    # The result carries presigned download URLs; no key is needed to fetch them.
    download "$(jget "result.$i.download_url" <<<"$result")" "$OUT_DIR/$file_name" \
        "$(jget "result.$i.size_bytes" <<<"$result")"
done

step "GET /file/download/$DIR/$SMALL: a fresh download URL (valid 5 minutes) for a stored file"
again="$(api GET "/file/download/$DIR/$(urlencode "$SMALL")")"
echo "$again" | jpretty
download "$(jget download.url <<<"$again")" "$WORK/again.mp4" "$(jget download.file_size <<<"$again")"

step "DELETE /file/...: the input and the outputs"
for file_name in "$NAME" "${OUTPUTS[@]}"; do
    api DELETE "/file/$DIR/$(urlencode "$file_name")"
    echo
done
left="$(api GET "/directory/$DIR" | jget files)"
[ "$left" = "[]" ] || die "directory still holds $left"
info "directory $DIR is empty (it expires by itself after its TTL)"

echo
echo "done: outputs in $OUT_DIR; usage of the run: $(jget usage <<<"$result")"
