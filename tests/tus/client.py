"""Resumable uploads through tuspy: an upload killed mid-way and resumed from the server's
offset by another process, the stored bytes checked; then the protocol's refusals, each in the
API's {ok:false, error} shape. Prints a line per check and `N passed, M failed`."""

import base64
import hashlib
import os
import subprocess
import sys
import time

import requests

BASE, KEY, SOURCE, WORK = sys.argv[1:5]
AUTH = {"Authorization": f"Basic {KEY}"}
TUS = {"Tus-Resumable": "1.0.0", **AUTH}
CHUNK = 8 * 1024 * 1024
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok  ' if ok else 'FAIL'}  {name}" + ("" if ok else f"  {detail}"), flush=True)


def api(method, path, body=None, key=KEY):
    r = requests.request(method, BASE + path, json=body, headers={"Authorization": f"Basic {key}"}, timeout=60)
    return r.status_code, (r.json() if r.content else None)


status, d = api("POST", "/directory", {"ttl": 3600})
dir_id = d["directory"]["id"]
url_file = os.path.join(WORK, "upload-url")

# One client process that uploads in 8 MB chunks, writing its upload URL first; killed once the
# server holds about 40% of the file.
UPLOAD = f"""
import sys
from tusclient import client
c = client.TusClient({BASE + '/tus'!r}, headers={AUTH!r})
u = c.uploader({SOURCE!r}, chunk_size={CHUNK}, metadata={{'filename': 'big.nut', 'dir_id': {dir_id!r}}},
               url=(open({url_file!r}).read().strip() if len(sys.argv) > 1 else None))
if len(sys.argv) == 1:
    u.set_url(u.create_url())
    open({url_file!r}, 'w').write(u.url)
    # Paced, so that it is still uploading when it is killed: the server takes the 300 MB in
    # less than the test's look every 0.2 s.
    import time
    while u.offset < u.get_file_size():
        u.upload_chunk()
        time.sleep(0.05)
else:
    u.upload()
print('done', u.offset, flush=True)
"""
size = os.path.getsize(SOURCE)
first = subprocess.Popen([sys.executable, "-c", UPLOAD])
offset = 0
deadline = time.monotonic() + 300
while time.monotonic() < deadline and first.poll() is None:
    time.sleep(0.2)
    if os.path.exists(url_file) and open(url_file).read().strip():
        h = requests.head(open(url_file).read().strip(), headers=TUS, timeout=30)
        offset = int(h.headers.get("Upload-Offset", "0"))
        if offset >= size * 0.4:
            break
first.kill()
first.wait()
url = open(url_file).read().strip()
h = requests.head(url, headers=TUS, timeout=30)
kept = int(h.headers["Upload-Offset"])
check("the killed client left a part of the file on the server", 0 < kept < size
      and int(h.headers["Upload-Length"]) == size and h.headers.get("Cache-Control") == "no-store",
      f"{kept} of {size}")
check("that part is whole chunks, every one the client sent in full", kept % CHUNK == 0, kept)

second = subprocess.run([sys.executable, "-c", UPLOAD, "resume"], capture_output=True, text=True, timeout=600)
check("a second client resumes from the server's offset and finishes",
      second.returncode == 0 and f"done {size}" in second.stdout, second.stdout + second.stderr[-2000:])
status, info = api("GET", f"/file/{dir_id}/big.nut")
check("the file is ready at its full size", status == 200 and info["file_info"]["file_size"] == size, info)
status, dl = api("GET", f"/file/download/{dir_id}/big.nut")
digest = hashlib.sha256()
with requests.get(dl["download"]["url"], stream=True, timeout=600) as r:
    for block in r.iter_content(4 * 1024 * 1024):
        digest.update(block)
source = hashlib.sha256()
with open(SOURCE, "rb") as f:
    for block in iter(lambda: f.read(4 * 1024 * 1024), b""):
        source.update(block)
want = source.hexdigest()
check("its bytes are the source's (sha256)", digest.hexdigest() == want, (digest.hexdigest(), want))
check("the finished upload is gone", requests.head(url, headers=TUS, timeout=30).status_code == 404)


def create(length, name, extra=None):
    meta = f"filename {base64.b64encode(name.encode()).decode()},dir_id {base64.b64encode(dir_id.encode()).decode()}"
    return requests.post(BASE + "/tus", headers={**TUS, "Upload-Length": str(length), "Upload-Metadata": meta, **(extra or {})}, timeout=30)


r = requests.options(BASE + "/tus", headers=AUTH, timeout=30)
check("OPTIONS names the version, the extensions and sha256", r.status_code == 204
      and "checksum" in r.headers.get("Tus-Extension", "") and r.headers.get("Tus-Checksum-Algorithm") == "sha256"
      and int(r.headers["Tus-Max-Size"]) == 1024 * 1024 * 1024, dict(r.headers))
r = create(2 * 1024 * 1024 * 1024, "huge.bin")
check("an Upload-Length over the plan: 403 before any byte, the API's message", r.status_code == 403
      and r.json()["ok"] is False and "max file size" in r.json()["error"], (r.status_code, r.text))
r = requests.post(BASE + "/tus", headers={**AUTH, "Upload-Length": "10"}, timeout=30)
check("no Tus-Resumable: 412", r.status_code == 412 and r.headers.get("Tus-Version") == "1.0.0", r.status_code)

r = create(10, "small.txt", {"Content-Type": "application/offset+octet-stream"})
small = r.headers.get("Location", "")
check("creation with upload: 201, Location, the bytes sent counted", r.status_code == 201 and small
      and r.headers.get("Upload-Offset") == "0" and r.headers.get("Upload-Expires"), (r.status_code, dict(r.headers)))
patch = lambda off, body, extra=None: requests.patch(small, data=body, headers={
    **TUS, "Upload-Offset": str(off), "Content-Type": "application/offset+octet-stream", **(extra or {})}, timeout=30)
r = patch(3, b"abc")
check("a PATCH at another offset: 409", r.status_code == 409 and r.json()["ok"] is False, (r.status_code, r.text))
bad = base64.b64encode(hashlib.sha256(b"xyz").digest()).decode()
r = patch(0, b"hello", {"Upload-Checksum": f"sha256 {bad}"})
offset = requests.head(small, headers=TUS, timeout=30).headers["Upload-Offset"]
check("a checksum that does not match: 460, nothing kept", r.status_code == 460 and offset == "0", (r.status_code, offset))
good = base64.b64encode(hashlib.sha256(b"hello").digest()).decode()
r = patch(0, b"hello", {"Upload-Checksum": f"sha256 {good}"})
check("a checksum that matches: 204, the offset moved", r.status_code == 204 and r.headers["Upload-Offset"] == "5", (r.status_code, dict(r.headers)))
r = patch(5, b"0123456789")
check("bytes past Upload-Length: 413, nothing kept", r.status_code == 413
      and requests.head(small, headers=TUS, timeout=30).headers["Upload-Offset"] == "5", (r.status_code, r.text))
r = requests.head(small, headers={"Tus-Resumable": "1.0.0", "Authorization": f"Basic {KEY}_other"}, timeout=30)
check("another account cannot see the upload", r.status_code == 404, r.status_code)
r = requests.patch(small, data=b"world", headers={**TUS, "Upload-Offset": "5", "Content-Type": "text/plain"}, timeout=30)
check("a PATCH of another content type: 415", r.status_code == 415, r.status_code)
# A PATCH's bytes are synced only with the last one: a machine that went down may have lost
# counted bytes. The .part file is cut as such a crash leaves it; the upload goes back to what
# the file holds, and the bytes sent again from there count.
part = os.path.join(WORK, "data", "tus", small.rsplit("/", 1)[1] + ".part")
os.truncate(part, 2)
r = patch(5, b"world")
head = requests.head(small, headers=TUS, timeout=30).headers.get("Upload-Offset")
check("bytes lost in a crash: 409, then HEAD answers what the file holds",
      r.status_code == 409 and head == "2", (r.status_code, r.text, head))
r = patch(2, b"llo")
check("... and they count again when sent from there",
      r.status_code == 204 and r.headers.get("Upload-Offset") == "5", (r.status_code, r.text))
r = requests.delete(small, headers=TUS, timeout=30)
status, info = api("GET", f"/file/{dir_id}/small.txt")
check("termination: 204, the upload and its file record gone", r.status_code == 204
      and requests.head(small, headers=TUS, timeout=30).status_code == 404 and status == 404, (r.status_code, status))

# PATCHes in quick succession on one instance run as one stream whose count may wait in memory
# (host/src/resumable/writers.rs): HEAD answers it, and the last PATCH counts and stores it all.
chain = create(9, "chain.txt").headers.get("Location", "")
sent = [requests.patch(chain, data=body, headers={**TUS, "Upload-Offset": str(off),
        "Content-Type": "application/offset+octet-stream"}, timeout=30) for off, body in ((0, b"abc"), (3, b"def"))]
head = requests.head(chain, headers=TUS, timeout=30).headers.get("Upload-Offset")
check("back-to-back PATCHes: HEAD answers the second's offset at once",
      [r.status_code for r in sent] == [204, 204] and head == "6", ([r.status_code for r in sent], head))
r = requests.patch(chain, data=b"ghi", headers={**TUS, "Upload-Offset": "6",
                   "Content-Type": "application/offset+octet-stream"}, timeout=30)
status, dl = api("GET", f"/file/download/{dir_id}/chain.txt")
body = requests.get(dl["download"]["url"], timeout=30).content if status == 200 else b""
check("... and the last stores the whole chain's bytes", r.status_code == 204 and body == b"abcdefghi",
      (r.status_code, status, body))

r = create(10, "abandoned.txt")
left = r.headers.get("Location", "")
time.sleep(8)
status, info = api("GET", f"/file/{dir_id}/abandoned.txt")
check("an upload left alone past its expiry is removed with its file record",
      r.status_code == 201 and requests.head(left, headers=TUS, timeout=30).status_code == 404
      and status == 404, (r.status_code, status))

failed = results.count(False)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
