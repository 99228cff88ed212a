#!/usr/bin/env bash
# `make test-image`: the image (`make image`) started as an operator would, with a named volume,
# and the README's walkthrough run against it with curl: a directory, an upload to its presigned
# URL, a thumbnail task, the download probed with ffprobe; then the container restarted and the
# file still there. Also checked: it runs as an unprivileged user, answers /healthz, and names
# its sandbox layer (bubblewrap, else Landlock; never none).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
IMAGE=${IMAGE:-localhost/mediaforge:latest}
mf_workdir image
PORT=$(mf_free_port)
NAME=mediaforge-test-$$
VOLUME=mediaforge-test-$$
API=http://127.0.0.1:$PORT
KEY="Authorization: Basic mf_demo_change_me"
remove() {
    # A chroot run is a session of its own (below): stopped whole.
    [ "${RUNNER:-podman}" = chroot ] && { kill -KILL -- "-${PIDS[-1]}" 2>/dev/null || true; }
    podman rm -f "$NAME" "$NAME-plain" >/dev/null 2>&1 || true
    podman volume rm -f "$VOLUME" >/dev/null 2>&1 || true
}
trap 'status=$?; [ $status = 0 ] || podman logs "$NAME" 2>&1 | tail -40; remove; mf_cleanup' EXIT
started=$(date +%s)
# bubblewrap inside a container mounts its own /proc, which the kernel allows only where the
# container's /proc is not partly masked: the README's `--security-opt unmask=/proc/*`.
FLAGS=${MEDIAFORGE_IMAGE_FLAGS:---security-opt unmask=/proc/*}
# Some VMs deny a runtime the resource limits it sets by default (crun: "setrlimit ...
# Operation not permitted") or run cgroups in hybrid mode, which crun refuses: there runc with
# limits within the host's hard ones starts the same image. Where no OCI runtime can start a
# container at all, the image's own filesystem is started instead, by chroot as its user with
# its entrypoint and environment: everything in the image is checked but the runtime's flags.
RUNTIME_FLAGS=""
if ! podman run --rm --entrypoint true "$IMAGE" >"$WORK/probe.out" 2>&1; then
    RUNTIME_FLAGS="--runtime runc --ulimit nofile=1024:$(ulimit -Hn) --ulimit nproc=1024:4096"
    echo "the default runtime cannot start a container here ($(tail -1 "$WORK/probe.out")): using $RUNTIME_FLAGS"
fi
RUNNER=podman
if ! podman run -d --name "$NAME" -p "127.0.0.1:$PORT:8080" -v "$VOLUME:/var/lib/mediaforge" \
    -e MEDIAFORGE__SERVER__PUBLIC_URL="$API" $RUNTIME_FLAGS $FLAGS "$IMAGE" >"$WORK/run.out" 2>&1; then
    echo "podman cannot start a container here ($(tail -1 "$WORK/run.out")):" \
         "starting the image's filesystem by chroot instead"
    RUNNER=chroot
    ROOT=$WORK/root
    mkdir -p "$ROOT"
    mounted=$(podman image mount "$IMAGE")
    cp -a "$mounted/." "$ROOT/"
    podman image unmount "$IMAGE" >/dev/null
    env_of() { podman image inspect "$IMAGE" --format '{{range .Config.Env}}{{println .}}{{end}}'; }
    start_chroot() {
        # A fresh mount and PID namespace, as a container would have; the image's user, working
        # directory, environment and command.
        setsid unshare -m -p -f --kill-child sh -c '
            mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && mount -t tmpfs tmpfs "$0/tmp" &&
            exec chroot --userspec=10001:$(stat -c %g "$0/var/lib/mediaforge") "$0" \
                /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin $(cat "$0/../image.env") HOME=/var/lib/mediaforge \
                MEDIAFORGE__SERVER__LISTEN=127.0.0.1:'"$PORT"' MEDIAFORGE__SERVER__PUBLIC_URL='"$API"' \
                sh -c "cd /var/lib/mediaforge && exec /usr/local/bin/mediaforge serve --config /etc/mediaforge/mediaforge.toml"
        ' "$ROOT" >>"$WORK/server.log" 2>&1 &
        PIDS+=("$!")
    }
    env_of | grep -v '^$' | grep -v '^MEDIAFORGE__SERVER__LISTEN=' >"$WORK/image.env"
    start_chroot
    podman() { # the few podman calls below, on the chroot
        case $1 in
            exec) shift 2; [ "$*" = "id -u" ] && stat -c %u "$ROOT/var/lib/mediaforge/data" ;;
            logs) cat "$WORK/server.log" ;;
            # Its own session, killed whole (a crash, which the volume must survive too).
            restart) kill -KILL -- "-${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true; start_chroot ;;
            *) command podman "$@" ;;
        esac
    }
fi

healthy() {
    for _ in $(seq 1 100); do
        curl -fsS "$API/healthz" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    echo "no /healthz within 20 s" >&2
    return 1
}
check() { # check NAME CONDITION...: prints ok/FAIL; a failure ends the run
    local name=$1
    shift
    if "$@"; then echo "ok    $name"; else echo "FAIL  $name"; exit 1; fi
}
healthy
echo "serving in $(( $(date +%s) - started )) s"
check "runs as an unprivileged user" test "$(podman exec "$NAME" id -u)" = 10001
layer=$(podman logs "$NAME" 2>&1 | grep -o 'sandbox layer: [A-Za-z]*' | head -1)
echo "$layer"
check "ffmpeg is sandboxed" test -n "$layer" -a "$layer" != "sandbox layer: Unsandboxed"
if [ "$RUNNER" = podman ]; then
    # With the README's flag, bubblewrap; without it, the Landlock layer (never unsandboxed).
    case $FLAGS in *unmask=/proc*)
        check "bubblewrap works with --security-opt unmask=/proc/*" test "$layer" = "sandbox layer: Bubblewrap" ;;
    esac
    podman run -d --name "$NAME-plain" $RUNTIME_FLAGS "$IMAGE" >/dev/null
    plain=""
    for _ in $(seq 1 50); do
        # Landlock, or on a kernel without it a start-up error that says no sandbox works.
        plain=$(podman logs "$NAME-plain" 2>&1 | grep -o 'sandbox layer: [A-Za-z]*\|no sandbox layer works' | head -1 || true)
        [ -n "$plain" ] && break
        sleep 0.2
    done
    podman rm -f "$NAME-plain" >/dev/null 2>&1 || true
    echo "without the flag: $plain"
    check "without the flag ffmpeg is still sandboxed, or the server does not start" \
        test "$plain" = "sandbox layer: Landlock" -o "$plain" = "no sandbox layer works"
fi

ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc2=size=640x360:rate=25:duration=3 \
    -f lavfi -i sine=duration=3 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac \
    "$WORK/clip.mp4"
field() { python3 -c "import json,sys; v=json.load(sys.stdin)
for k in sys.argv[1].split('.'): v=v[k]
print(v)" "$1"; }
DIR=$(curl -fsS -X POST "$API/directory" -H "$KEY" -H 'Content-Type: application/json' \
    -d '{"ttl": 3600}' | field directory.id)
UPLOAD=$(curl -fsS -X POST "$API/file" -H "$KEY" -H 'Content-Type: application/json' \
    -d "{\"file_name\": \"clip.mp4\", \"dir_id\": \"$DIR\"}" | field upload.url)
curl -fsS -X PUT --data-binary @"$WORK/clip.mp4" "$UPLOAD" >/dev/null
curl -fsS -X POST "$API/ffmpeg/process" -H "$KEY" -H 'Content-Type: application/json' -d "{\"task\": {
    \"inputs\": [{\"file_path\": \"$DIR/clip.mp4\"}],
    \"outputs\": [{\"file\": \"thumb.png\", \"options\": [\"-ss\", \"1\", \"-frames:v\", \"1\"]}]}}" \
    >"$WORK/process.json"
check "a task runs in the container" test "$(field ok <"$WORK/process.json")" = True
curl -fsS -o "$WORK/thumb.png" "$(field result <"$WORK/process.json" | python3 -c \
    "import ast,sys; print(ast.literal_eval(sys.stdin.read())[0]['download_url'])")"
size=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0 "$WORK/thumb.png")
check "the output downloads and probes as a 640x360 picture ($size)" test "$size" = "640,360"

podman restart "$NAME" >/dev/null
healthy
files=$(curl -fsS "$API/directory/$DIR" -H "$KEY")
check "the volume keeps the files across a restart" grep -q '"thumb.png"' <<<"$files"
echo "image test: passed in $(( $(date +%s) - started )) s"
