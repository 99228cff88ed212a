# Helpers shared by the example scripts in this directory. Not meant to be run on its own:
# each script does `source "$(dirname "$0")/common.sh"`.
#
# Environment:
#   MEDIAFORGE_URL  base URL of the server   (default http://127.0.0.1:8080)
#   MEDIAFORGE_KEY  API key of your account  (default mf_demo_change_me, the demo account of
#                   config/mediaforge.toml)
#
# Only curl and python3 are needed; python3 reads the JSON answers.

# `set -e` also inside $(...), so a failed call in a helper stops the script.
shopt -s inherit_errexit

MEDIAFORGE_URL="${MEDIAFORGE_URL:-http://127.0.0.1:8080}"
MEDIAFORGE_KEY="${MEDIAFORGE_KEY:-mf_demo_change_me}"
API="${MEDIAFORGE_URL%/}"
AUTH="Authorization: Basic $MEDIAFORGE_KEY"

command -v curl >/dev/null || { echo "error: curl is required" >&2; exit 1; }
command -v python3 >/dev/null || { echo "error: python3 is required" >&2; exit 1; }

# A scratch directory for answers, generated media and downloads; removed on exit.
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mediaforge-example.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

step() { printf '\n==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# json_str TEXT: TEXT as a JSON string literal, quotes included, for building request bodies.
json_str() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }

# jget PATH < JSON: the value at PATH, where PATH is dot-separated keys and list indices
# (`file.file_path`, `result.0.download_url`). Strings print raw, anything else as JSON;
# a missing value prints nothing and fails.
jget() {
    python3 -c '
import json, sys
v = json.load(sys.stdin)
for part in filter(None, sys.argv[1].split(".")):
    try:
        v = v[int(part)] if isinstance(v, list) else v[part]
    except (KeyError, IndexError, ValueError, TypeError):
        sys.exit(1)
print(v if isinstance(v, str) else json.dumps(v))
' "$1"
}

# jpretty < JSON: indented JSON, for showing answers.
jpretty() { python3 -m json.tool; }

# api METHOD PATH [BODY]: calls the API with the key and prints the JSON answer on stdout.
# Fails (exits the script) unless the answer is JSON with "ok": true and a 2xx status; the
# status is left in $HTTP_STATUS.
api() {
    local method=$1 path=$2 body=${3-}
    api_call "$method" "$path" "$body"
    if [ "$(jget ok < "$WORK/answer.json")" != "true" ] || [ "${HTTP_STATUS:0:1}" != 2 ]; then
        printf 'error: %s %s answered %s:\n' "$method" "$path" "$HTTP_STATUS" >&2
        cat "$WORK/answer.json" >&2
        echo >&2
        exit 1
    fi
    cat "$WORK/answer.json"
}

# api_call METHOD PATH [BODY]: as `api`, but only the transport and JSON are checked, not
# "ok" (a failed job's view is a 200 with "ok": false). The answer is also in $WORK/answer.json.
api_call() {
    local method=$1 path=$2 body=${3-}
    local args=(-sS -X "$method" -H "$AUTH" -o "$WORK/answer.json" -w '%{http_code}')
    if [ -n "$body" ]; then
        args+=(-H 'Content-Type: application/json' --data-binary "$body")
    fi
    HTTP_STATUS="$(curl "${args[@]}" "$API$path")" || die "$method $path: could not reach $API"
    if ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/answer.json" 2>/dev/null; then
        printf 'error: %s %s answered %s with something that is not JSON:\n' \
            "$method" "$path" "$HTTP_STATUS" >&2
        head -c 2000 "$WORK/answer.json" >&2
        echo >&2
        exit 1
    fi
}

# input_file [PATH]: prints the media file to use: PATH if given, else a 5-second 640x360
# test clip with a 440 Hz tone, made with ffmpeg's lavfi sources into the scratch directory.
input_file() {
    if [ -n "${1-}" ]; then
        [ -f "$1" ] || die "no such file: $1"
        printf '%s\n' "$1"
        return
    fi
    command -v ffmpeg >/dev/null || die "no input file given and ffmpeg is not installed to make one"
    local clip="$WORK/sample.mp4"
    ffmpeg -hide_banner -loglevel error -y \
        -f lavfi -i "testsrc=size=640x360:rate=25:duration=5" \
        -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=5" \
        -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac -b:a 96k -shortest \
        "$clip" || die "ffmpeg could not make a test clip"
    printf '%s\n' "$clip"
}

# upload FILE [DIR_ID]: POST /file (in DIR_ID, or a new temporary directory without it), then
# PUT the bytes to the presigned URL with the headers it came with. Prints the file_path
# (`<dir_id>/<file_name>`).
upload() {
    local file=$1 dir=${2-} name body created url
    name="$(basename "$file")"
    body="{\"file_name\": $(json_str "$name")"
    [ -n "$dir" ] && body="$body, \"dir_id\": $(json_str "$dir")"
    body="$body}"
    created="$(api POST /file "$body")"
    url="$(jget upload.url <<<"$created")"
    # Every header in upload.headers must be sent with the PUT (none with the local store).
    local headers=()
    while IFS= read -r h; do
        [ -n "$h" ] && headers+=(-H "$h")
    done < <(jget upload.headers <<<"$created" | python3 -c '
import json, sys
for k, v in json.load(sys.stdin).items():
    print(f"{k}: {v}")')
    local status
    status="$(curl -sS -o "$WORK/put.json" -w '%{http_code}' "${headers[@]}" -T "$file" "$url")" \
        || die "PUT $url failed"
    if [ "$status" != 200 ] || [ "$(jget ok < "$WORK/put.json")" != true ]; then
        printf 'error: upload of %s answered %s:\n' "$name" "$status" >&2
        cat "$WORK/put.json" >&2
        echo >&2
        exit 1
    fi
    jget file.file_path <<<"$created"
}

# download URL DEST [EXPECTED_SIZE]: GET a presigned URL (no key needed) into DEST and check
# the status and, when given, the size.
download() {
    local url=$1 dest=$2 want=${3-} status size
    status="$(curl -sS -o "$dest" -w '%{http_code}' "$url")" || die "GET $url failed"
    [ "$status" = 200 ] || die "download of $(basename "$dest") answered $status"
    size="$(wc -c < "$dest" | tr -d ' ')"
    if [ -n "$want" ] && [ "$size" != "$want" ]; then
        die "$(basename "$dest"): got $size bytes, expected $want"
    fi
    info "saved $dest ($size bytes)"
}

# urlencode TEXT: TEXT percent-encoded for a path segment.
urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }

# file_url FILE_PATH: `<dir_id>/<file_name>` with the file name percent-encoded, for URLs.
file_url() { printf '%s/%s\n' "${1%%/*}" "$(urlencode "${1#*/}")"; }
