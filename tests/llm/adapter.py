"""A small HTTP adapter between Mediaforge and llama-cpp-python's server, for tests/llm/run.sh.

Mediaforge asks for constrained output the way OpenAI's API defines it:
    "response_format": {"type": "json_schema", "json_schema": {"name": ..., "schema": S, "strict": true}}
llama-cpp-python's server (0.3.x) only knows the older shape
    "response_format": {"type": "json_object", "schema": S}
and answers 422 to the first. This adapter rewrites the one into the other and forwards
everything else unchanged; it also logs each chat call (the request's last line, the answer,
the time) so a run can be read afterwards. llama.cpp's own llama-server, vLLM and Ollama accept
the OpenAI shape directly and need no adapter.

Usage: python adapter.py LISTEN_PORT UPSTREAM_BASE (e.g. http://127.0.0.1:8001)
Standard library only; listens on 127.0.0.1.
"""

import json
import sys
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

UPSTREAM = ""


def rewrite(body: bytes) -> bytes:
    try:
        request = json.loads(body)
    except ValueError:
        return body
    rf = request.get("response_format")
    if isinstance(rf, dict) and rf.get("type") == "json_schema":
        schema = (rf.get("json_schema") or {}).get("schema")
        request["response_format"] = {"type": "json_object", "schema": schema}
    return json.dumps(request).encode()


def last_user_line(body: bytes) -> str:
    try:
        messages = json.loads(body).get("messages") or []
        return messages[-1]["content"].splitlines()[-1]
    except (ValueError, KeyError, IndexError, AttributeError, TypeError):
        return "?"


def answer_text(body: bytes) -> str:
    try:
        return json.loads(body)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return body[:300].decode("utf-8", "replace")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        chat = self.path.endswith("/chat/completions") and body is not None
        if chat:
            body = rewrite(body)
        headers = {"Content-Type": self.headers.get("Content-Type", "application/json")}
        if self.headers.get("Authorization"):
            headers["Authorization"] = self.headers["Authorization"]
        req = urllib.request.Request(UPSTREAM + self.path, data=body, headers=headers, method=method)
        started = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=600) as res:
                status, data, ctype = res.status, res.read(), res.headers.get("Content-Type")
        except urllib.error.HTTPError as e:
            status, data, ctype = e.code, e.read(), e.headers.get("Content-Type")
        except OSError as e:
            status, data, ctype = 502, json.dumps({"error": str(e)}).encode(), "application/json"
        if chat:
            took = time.monotonic() - started
            print(
                f"adapter: {status} in {took:.1f} s | {last_user_line(body)} | {answer_text(data)}",
                file=sys.stderr,
                flush=True,
            )
        self.send_response(status)
        self.send_header("Content-Type", ctype or "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.forward("GET")

    def do_POST(self) -> None:  # noqa: N802
        self.forward("POST")

    def log_message(self, format: str, *args) -> None:  # quiet: the chat lines above suffice
        pass


def main() -> None:
    global UPSTREAM
    port, UPSTREAM = int(sys.argv[1]), sys.argv[2].rstrip("/")
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
