#!/usr/bin/env bash
# Media metadata with POST /ffprobe/analyze: upload a file, then ask for chosen fields of the
# format and streams, a frame count, and per-frame data for one second of video.
#
# usage: probe.sh [MEDIA_FILE]
#   Without MEDIA_FILE a 5-second test clip is made with ffmpeg.
#   Reads MEDIAFORGE_URL and MEDIAFORGE_KEY.
set -euo pipefail
source "$(dirname "$0")/common.sh"

INPUT="$(input_file "${1-}")"
echo "server: $API   input: $INPUT"

step "POST /file, then PUT the bytes"
INPUT_PATH="$(upload "$INPUT")"
info "uploaded as $INPUT_PATH"

# The `probe` object names the sections you want and, in each, the fields; an empty list
# means every field of that section, a section left out is not returned.
step "POST /ffprobe/analyze: chosen format and stream fields"
body=$(cat <<EOF
{
  "file_path": $(json_str "$INPUT_PATH"),
  "probe": {
    "format": ["format_name", "duration", "size", "bit_rate"],
    "streams": ["index", "codec_type", "codec_name", "width", "height", "avg_frame_rate",
                "sample_rate", "channels"]
  }
}
EOF
)
echo "$body"
answer="$(api POST /ffprobe/analyze "$body")"
echo "$answer" | jpretty
python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]
f = r["format"]
print("    {}, {:.2f} s, {:,} bytes".format(f["format_name"], float(f["duration"]), int(f["size"])))
for s in r.get("streams", []):
    kind = s.get("codec_type")
    if kind == "video":
        what = "video {codec_name} {width}x{height} at {avg_frame_rate} fps".format(**s)
    elif kind == "audio":
        what = "audio {codec_name} {sample_rate} Hz, {channels} channel(s)".format(**s)
    else:
        what = "{} {}".format(kind, s.get("codec_name"))
    print("    stream {}: {}".format(s.get("index"), what))
' <<<"$answer"

step "POST /ffprobe/analyze: count the frames of the first video stream"
body="{\"file_path\": $(json_str "$INPUT_PATH"),
 \"probe\": {\"streams\": [\"codec_name\", \"nb_read_frames\"], \"select_streams\": \"v:0\", \"count_frames\": true}}"
echo "$body"
answer="$(api POST /ffprobe/analyze "$body")"
echo "$answer" | jpretty

step "POST /ffprobe/analyze: timestamp and picture type of each frame in the first second"
# frames and packets need select_streams; read_intervals bounds how much is read.
body="{\"file_path\": $(json_str "$INPUT_PATH"),
 \"probe\": {\"frames\": [\"pts_time\", \"pict_type\"], \"select_streams\": \"v:0\", \"read_intervals\": \"%+1\"}}"
echo "$body"
answer="$(api POST /ffprobe/analyze "$body")"
python3 -c '
import json, sys
a = json.load(sys.stdin)
frames = a["result"].get("frames", [])
types = "".join(f.get("pict_type", "?") for f in frames)
print("    {} frames: {}".format(len(frames), types))
print("    first:", json.dumps(frames[:3]))
print("    usage:", json.dumps(a["usage"]))
' <<<"$answer"

step "DELETE /file/$INPUT_PATH"
api DELETE "/file/$(file_url "$INPUT_PATH")"
echo
echo
echo "done"
