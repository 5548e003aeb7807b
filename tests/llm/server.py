"""A small OpenAI-compatible chat-completions server on 127.0.0.1 with scripted replies (a real HTTP server:
the planners under test reach it through the ``openai`` client, like any endpoint)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """One scripted reply: an answer text (HTTP 200), or an error status; ``delay`` seconds before it."""

    text: str | None = None
    status: int = 200
    delay: float = 0.0
    headers: dict = field(default_factory=dict)


def prompt_hash(body: dict) -> str:
    return hashlib.sha256(body["messages"][-1]["content"].encode("utf-8")).hexdigest()


#: script(request body, how many requests with this prompt came before) -> Reply
Script = Callable[[dict, int], Reply]


class ScriptedServer:
    def __init__(self, script: Script, latency: float = 0.05):
        self.script = script
        self.latency = latency  # seconds each answered request stays in flight (so that overlaps show)
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                key = prompt_hash(body)
                with server._lock:
                    server.requests.append(body)
                    before = server._seen.get(key, 0)
                    server._seen[key] = before + 1
                reply = server.script(body, before)
                if reply.delay:  # a reply the client gives up on: not counted in flight (the client moved on)
                    server._stop.wait(reply.delay)
                    self._send(200, {"error": {"message": "too late"}})
                    return
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    server._stop.wait(server.latency)
                    if reply.status != 200:
                        self._send(reply.status, {"error": {"message": f"scripted HTTP {reply.status}"}},
                                   reply.headers)
                        return
                    prompt = body["messages"][-1]["content"]
                    self._send(200, {
                        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": reply.text}}],
                        "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(reply.text or "") // 4,
                                  "total_tokens": len(prompt) // 4 + len(reply.text or "") // 4}})
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status: int, data: dict, headers: dict | None = None) -> None:
                payload = json.dumps(data).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
                    pass

        return Handler
