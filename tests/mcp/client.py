"""The MCP endpoint through the official Python SDK, against the live server that run.sh started.

    client.py BASE KEY BIN WORK FILES

FILES is a plain HTTP server over WORK (for `import_url`; the test config allows loopback URLs).

Streamable HTTP (initialise, tools and their schemas, upload, validate, process, probe, ask, jobs,
refusals with the API's messages, a wrong key), then the stdio bridge (`BIN mcp --url BASE
--key-env VAR`) with the SDK's stdio client. Prints one line per check and closes with
`N passed, M failed`; exits non-zero on a failure.
"""

import asyncio
import json
import os
import subprocess
import sys
import traceback

import httpx2
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BASE, KEY, BIN, WORK, FILES = sys.argv[1:6]
CLIP = os.path.join(WORK, "clip.mp4")
TOOLS = [
    "create_directory", "list_directories", "list_files", "create_file",
    "create_resumable_upload", "import_url",
    "get_download_url", "delete_file", "validate", "estimate", "process", "probe", "ask", "ask_probe",
    "submit_job", "job_status", "list_jobs", "cancel_job",
]
SMALL = ["-c:v", "libx264", "-preset", "ultrafast", "-vf", "scale=80:-2", "-c:a", "aac"]
# The API refuses it (a file-valued option): the tool must say exactly the same.
FORBIDDEN = ["-filter_script:v", "/etc/hostname"]

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name} {detail}")


def text(result):
    return " ".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def call(session, name, args, **kw):
    """A tool's structured result; raises with the tool's message when it is an error."""
    result = await session.call_tool(name, args, **kw)
    if result.is_error:
        raise RuntimeError(f"{name}: {text(result)}")
    return result.structured_content


def ffprobe(path):
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-of", "json", "-show_streams", "-show_format", path],
        capture_output=True, text=True, check=True,
    ).stdout
    return json.loads(out)


def api(method, path, body=None, key=KEY):
    r = httpx2.request(method, f"{BASE}{path}", json=body, timeout=120,
                       headers={"Authorization": f"Basic {key}"})
    return r.status_code, r.json()


async def over_http():
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {KEY}"})
    async with http, streamable_http_client(f"{BASE}/mcp", http_client=http) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            check("initialize", init.server_info.name == "mediaforge"
                  and init.capabilities.tools is not None, repr(init))

            tools = (await s.list_tools()).tools
            by_name = {t.name: t for t in tools}
            missing = [n for n in TOOLS if n not in by_name]
            check("tools/list names every tool", not missing, f"missing {missing}")
            bad = [t.name for t in tools
                   if t.input_schema.get("type") != "object" or not t.output_schema]
            check("every tool has an input and an output schema", not bad, f"{bad}")
            check("process takes a task", "task" in by_name["process"].input_schema["properties"])

            d = await call(s, "create_directory", {"ttl": 3600})
            dir_id = d["directory"]["id"]
            check("create_directory", d["ok"] and d["directory"]["ttl"] == 3600, d)

            f = await call(s, "create_file", {"file_name": "clip.mp4", "dir_id": dir_id})
            up = f["upload"]
            with open(CLIP, "rb") as fh:
                put = httpx2.put(up["url"], content=fh.read(), headers=up["headers"], timeout=60)
            check("create_file + PUT to the upload URL", put.status_code == 200
                  and f["file"]["file_path"] == f"{dir_id}/clip.mp4", f"{put.status_code} {put.text}")
            clip = f"{dir_id}/clip.mp4"
            f = await call(s, "create_file", {"file_name": "long.mp4", "dir_id": dir_id})
            with open(os.path.join(WORK, "long.mp4"), "rb") as fh:
                httpx2.put(f["upload"]["url"], content=fh.read(), headers=f["upload"]["headers"],
                           timeout=60).raise_for_status()
            long = f["file"]["file_path"]
            # Encoding 20 s of busy picture takes seconds: progress is reported meanwhile.
            SLOW = ["-c:v", "libx264", "-preset", "slow"]
            # The job's progress is read once a second: it must run several, never from the cache.
            SLOWER = ["-c:v", "libx264", "-preset", "veryslow", "-crf", "20"]

            files = await call(s, "list_files", {"dir_id": dir_id})
            check("list_files", sorted(x["file_name"] for x in files["files"]) == ["clip.mp4", "long.mp4"],
                  files)
            dirs = await call(s, "list_directories", {})
            check("list_directories", dir_id in [x["id"] for x in dirs["directories"]], dirs)

            # A large file's way in: a tus upload an agent drives with plain PATCHes, cut
            # after the first and taken up again from the offset HEAD answers.
            with open(os.path.join(WORK, "long.mp4"), "rb") as fh:
                data = fh.read()
            r = await call(s, "create_resumable_upload",
                           {"file_name": "resumed.mp4", "size_bytes": len(data), "dir_id": dir_id})
            url = r["upload_url"]
            tus = {"Authorization": f"Basic {KEY}", "Tus-Resumable": "1.0.0"}
            patch = {**tus, "Content-Type": "application/offset+octet-stream"}
            half = len(data) // 2
            httpx2.patch(url, content=data[:half], timeout=60,
                         headers={**patch, "Upload-Offset": "0"}).raise_for_status()
            at = int(httpx2.head(url, headers=tus, timeout=30).headers["Upload-Offset"])
            httpx2.patch(url, content=data[at:], timeout=60,
                         headers={**patch, "Upload-Offset": str(at)}).raise_for_status()
            dl = await call(s, "get_download_url", {"file_path": r["file_path"]})
            got = httpx2.get(dl["download"]["url"], timeout=60).content
            check("create_resumable_upload: PATCHes resumed from HEAD's offset make the file",
                  r["file_path"] == f"{dir_id}/resumed.mp4" and at == half and got == data,
                  f"{r} at {at}, {len(got)} of {len(data)} bytes")
            try:
                big = await call(s, "create_resumable_upload",
                                 {"file_name": "huge.mp4", "size_bytes": 10**12, "dir_id": dir_id})
            except RuntimeError as e:
                big = str(e)
            check("create_resumable_upload over the plan: the API's message",
                  "exceeds plan" in str(big), big)

            task = {"inputs": [{"file_path": clip}], "outputs": [{"file": "small.mp4", "options": SMALL}]}
            v = await call(s, "validate", {"task": task})
            check("validate: argv and decisions", v["ok"] and "small.mp4" in v["command"]
                  and isinstance(v["decisions"], list) and v["output_dir_id"] == dir_id, v)
            status, http_v = api("POST", "/ffmpeg/validate", {"task": task})
            check("validate answers as POST /ffmpeg/validate", status == 200
                  and http_v["command"] == v["command"], http_v)

            e = await call(s, "estimate", {"task": task})
            status, http_e = api("POST", "/ffmpeg/estimate", {"task": task})
            check("estimate answers as POST /ffmpeg/estimate", status == 200 and e["ok"]
                  and e["estimate"]["time_sec"] > 0 and e["quota"]["fits"] is True
                  and e["estimate"]["input_size_gb"] == http_e["estimate"]["input_size_gb"], (e, http_e))
            r = await s.call_tool("estimate", {"task": {"inputs": [{"file_path": clip}],
                                                        "outputs": [{"file": "x.mp4", "options": FORBIDDEN}]}})
            status, http_r = api("POST", "/ffmpeg/estimate", {"task": {"inputs": [{"file_path": clip}],
                                                                      "outputs": [{"file": "x.mp4", "options": FORBIDDEN}]}})
            check("estimate of a refused task: the API's message", r.is_error and status == 400
                  and text(r) == http_r["error"], (text(r), http_r))

            progress, totals = [], []

            async def on_progress(p, total, message):
                progress.append(p)
                totals.append(total)

            p = await call(s, "process", {"task": task}, progress_callback=on_progress)
            out = p["result"][0]
            check("process: an output and its usage", p["ok"] and out["file_name"] == "small.mp4"
                  and p["usage"]["input_size_gb"] > 0, p)
            progress.clear()
            p = await call(s, "process", {"task": {"inputs": [{"file_path": long}],
                                                   "outputs": [{"file": "slow.mp4", "options": SLOW}]}},
                           progress_callback=on_progress)
            check("process: progress notifications, only increasing", p["ok"] and progress
                  and progress == sorted(set(progress)), progress)
            check("process: progress against the input's 20 s", 20.0 in totals, totals)
            body = httpx2.get(out["download_url"], timeout=60)
            small = os.path.join(WORK, "small.mp4")
            with open(small, "wb") as fh:
                fh.write(body.content)
            info = ffprobe(small)
            video = [x for x in info["streams"] if x["codec_type"] == "video"]
            check("process: the output is an 80-pixel-wide H.264 video", body.status_code == 200
                  and video and video[0]["width"] == 80 and video[0]["codec_name"] == "h264",
                  info.get("streams"))

            dl = await call(s, "get_download_url", {"file_path": f"{dir_id}/small.mp4"})
            check("get_download_url", dl["download"]["file_size"] == out["size_bytes"], dl)

            pr = await call(s, "probe", {"file_path": f"{dir_id}/small.mp4",
                                         "probe": {"streams": ["codec_type", "width"]}})
            widths = [x.get("width") for x in pr["result"]["streams"] if x.get("codec_type") == "video"]
            check("probe", pr["ok"] and widths == [80], pr)

            a = await call(s, "ask", {"inputs": [{"file_path": clip}], "instructions": "convert to mp3"})
            check("ask: translated, its dry run and estimate shown, nothing run",
                  a["ok"] and a["ran"] is False and "result" not in a
                  and a["generated_command"]["outputs"][0]["file"].endswith(".mp3")
                  and a["command"][0] == "ffmpeg" and a["estimate"]["time_sec"] >= 0, a)
            a = await call(s, "ask", {"inputs": [{"file_path": clip}], "instructions": "convert to mp3",
                                      "run": True})
            check("ask with run: translated and run", a["ok"] and a["ran"] is True
                  and a["result"][0]["file_name"].endswith(".mp3"), a)
            a = await call(s, "ask", {"inputs": [{"file_path": clip}],
                                      "instructions": "find the silences", "run": True})
            check("ask: a named job answered with its recipe, run, its data back",
                  a["ok"] and a["generated_command"]["recipe"]["name"] == "analyze"
                  and isinstance(a["data"]["silences"], list), a)
            r = await s.call_tool("ask", {"inputs": [{"file_path": clip}],
                                          "instructions": "convert to mp3 and e-mail it to me"})
            check("ask: a clause no task can do is refused as such",
                  r.is_error and "cannot send or upload" in text(r), text(r))
            ap = await call(s, "ask_probe", {"file_path": clip, "instructions": "how long is this video?"})
            check("ask_probe", ap["ok"] and ap.get("generated_probe") is not None, ap)

            job = await call(s, "submit_job", {"task": {
                "inputs": [{"file_path": long}],
                "outputs": [{"file": "job.mp4", "options": SLOWER}]}, "cache": False})
            check("submit_job", job["ok"] and job["status"] == "pending", job)
            progress.clear()
            jv = await call(s, "job_status", {"job_id": job["job_id"], "wait": True, "timeout_s": 60},
                            progress_callback=on_progress)
            check("job_status (wait): completed with its output", jv["status"] == "completed"
                  and jv["result"][0]["file_name"] == "job.mp4", jv)
            check("job_status (wait): progress notifications", progress
                  and progress == sorted(set(progress)), progress)
            r = await s.call_tool("job_status", {"job_id": job["job_id"], "timeout_s": 9999})
            check("job_status: timeout_s is bounded", r.is_error
                  and text(r) == "timeout_s must be from 1 to 240", text(r))
            listed = await call(s, "list_jobs", {"status": "completed", "limit": 10})
            check("list_jobs", job["job_id"] in [x["id"] for x in listed["jobs"]], listed)
            r = await s.call_tool("cancel_job", {"job_id": job["job_id"]})
            check("cancel_job of a finished job: the API's 409 message", r.is_error and text(r) ==
                  "Cannot cancel job in 'completed' status. Only pending jobs can be cancelled.", text(r))

            # A refused task: the same message as POST /ffmpeg/process.
            bad_task = {"inputs": [{"file_path": clip}],
                        "outputs": [{"file": "o.mp4", "options": FORBIDDEN}]}
            r = await s.call_tool("process", {"task": bad_task})
            status, http_body = api("POST", "/ffmpeg/process", {"task": bad_task})
            check("a forbidden option: refused with the API's message", r.is_error and status == 400
                  and text(r) == http_body["error"], f"tool: {text(r)!r} http: {status} {http_body}")
            r = await s.call_tool("process", {"task": {"inputs": [], "outputs": []}})
            check("an empty task: the API's message", r.is_error
                  and text(r) == "Task must have at least one input", text(r))
            r = await s.call_tool("process", {})
            check("no task: the API's message", r.is_error
                  and text(r) == "Task object is required in request body", text(r))
            r = await s.call_tool("get_download_url", {"file_path": f"{dir_id}/nope.mp4"})
            check("a missing file", r.is_error and text(r) == "File not found", text(r))
            r = await s.call_tool("list_files", {"dir_id": 7})
            check("a mistyped argument", r.is_error and "dir_id" in text(r), text(r))
            imp = await call(s, "import_url", {"url": f"{FILES}/clip.mp4", "dir_id": dir_id})
            check("import_url: stored under a free name", imp["file_info"] == {
                "file_path": f"{dir_id}/clip_1.mp4", "file_type": "video/mp4",
                "file_size": os.path.getsize(CLIP)}, imp)
            r = await s.call_tool("import_url", {"url": "file:///etc/passwd"})
            check("import_url: not an http(s) URL", r.is_error
                  and text(r) == "url must be an http(s) URL", text(r))
            r = await s.call_tool("import_url", {"url": f"{FILES}/clip.mp4", "dir_id": dir_id,
                                                 "file_name": "../x"})
            check("import_url: an invalid name", r.is_error and text(r).startswith("Invalid file_name"), text(r))

            # Recipes are tools of their own, their params schema the tool's.
            hls = by_name.get("recipe_hls")
            check("recipes are tools", hls is not None
                  and hls.input_schema["properties"]["params"]["properties"]["rungs"]["type"] == "array",
                  hls and hls.input_schema)
            t = await call(s, "recipe_thumbnails", {"inputs": [clip], "params": {"count": 2, "width": 96}})
            check("recipe_thumbnails: two pictures and their times", t["ok"]
                  and [x["file_name"] for x in t["result"]] == ["thumb_01.jpg", "thumb_02.jpg"]
                  and len(t["data"]["thumbnails"]) == 2, t)
            r = await s.call_tool("recipe_thumbnails", {"inputs": [clip], "params": {"count": 0}})
            status, http_r = api("POST", "/recipes/thumbnails", {"inputs": [clip], "params": {"count": 0}})
            check("a recipe's refused params: the API's message", r.is_error and status == 400
                  and text(r) == http_r["error"] and "count" in text(r), (text(r), http_r))

            d = await call(s, "delete_file", {"file_path": f"{dir_id}/small.mp4"})
            check("delete_file", d["deleted"]["file_path"] == f"{dir_id}/small.mp4", d)

    # A wrong key: the API's 401 before any MCP exchange.
    r = httpx2.post(f"{BASE}/mcp", timeout=30, headers={
        "Authorization": "Bearer wrong-key", "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json"},
        content=b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}')
    check("a wrong key: 401 {ok:false, error:'Invalid API key'}", r.status_code == 401
          and r.json() == {"ok": False, "error": "Invalid API key"}, f"{r.status_code} {r.text}")
    try:
        http = create_mcp_http_client(headers={"Authorization": "Bearer wrong-key"})
        async with http, streamable_http_client(f"{BASE}/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as s:
                await asyncio.wait_for(s.initialize(), 30)
        check("a wrong key: the SDK cannot initialise", False, "it did")
    except Exception:  # noqa: BLE001 - any failure is the expected outcome
        check("a wrong key: the SDK cannot initialise", True)


async def over_stdio():
    env = dict(os.environ, MEDIAFORGE_KEY=KEY)
    params = StdioServerParameters(
        command=BIN, args=["mcp", "--url", BASE, "--key-env", "MEDIAFORGE_KEY"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            check("stdio bridge: initialize", init.server_info.name == "mediaforge", repr(init))
            tools = (await s.list_tools()).tools
            fixed = [t.name for t in tools if not t.name.startswith("recipe_")]
            check("stdio bridge: tools/list", sorted(fixed) == sorted(TOOLS)
                  and "recipe_hls" in [t.name for t in tools], [t.name for t in tools])
            d = await call(s, "create_directory", {"ttl": 60})
            dirs = await call(s, "list_directories", {})
            check("stdio bridge: tools answer", d["directory"]["id"]
                  in [x["id"] for x in dirs["directories"]], dirs)
            r = await s.call_tool("list_files", {"dir_id": "nope"})
            check("stdio bridge: a refusal", r.is_error and text(r) == "Directory not found", text(r))

    env = dict(os.environ, MEDIAFORGE_KEY="wrong-key")
    params = StdioServerParameters(
        command=BIN, args=["mcp", "--url", BASE, "--key-env", "MEDIAFORGE_KEY"], env=env)
    try:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await asyncio.wait_for(s.initialize(), 30)
        check("stdio bridge: a wrong key is refused", False, "initialised")
    except Exception as e:  # noqa: BLE001
        check("stdio bridge: a wrong key is refused", "Invalid API key" in repr(e), repr(e))


async def main():
    for part in (over_http, over_stdio):
        try:
            await part()
        except BaseException as e:  # noqa: BLE001 - report and go on to the next part
            check(f"{part.__name__} ran to the end", False, "".join(
                traceback.format_exception(type(e), e, e.__traceback__))[-3000:])


asyncio.run(main())
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
