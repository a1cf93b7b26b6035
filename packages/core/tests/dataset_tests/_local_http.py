"""A tiny HTTP file server on 127.0.0.1 for download tests.

Behaviour per path can be tuned: serve a fixed body (with Range support),
drop the connection half-way for the first N requests, answer 404, or stall.
"""

from __future__ import annotations

import http.server
import threading
import time


class LocalServer:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.drop_first: dict[str, int] = {}
        self.stall: dict[str, float] = {}
        self.slow: dict[str, float] = {}
        self.ignore_range = False
        self.requests: list[tuple[str, str | None]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                server._handle(self)

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass  # clients that give up (timeouts) break pipes on purpose

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def count(self, path: str) -> int:
        with self._lock:
            return sum(1 for p, _ in self.requests if p == path)

    def _handle(self, h: http.server.BaseHTTPRequestHandler) -> None:
        path = h.path.lstrip("/")
        rng = h.headers.get("Range")
        with self._lock:
            self.requests.append((path, rng))
            drop = self.drop_first.get(path, 0)
            if drop:
                self.drop_first[path] = drop - 1
        if path in self.stall:
            time.sleep(self.stall[path])
        body = self.files.get(path)
        if body is None:
            h.send_response(404)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        start = 0
        if rng and not self.ignore_range:
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(body):
                h.send_response(416)
                h.send_header("Content-Length", "0")
                h.end_headers()
                return
            h.send_response(206)
            h.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            h.send_response(200)
        payload = body[start:]
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        if drop:
            # Announce the full length, send half, then hang up.
            h.wfile.write(payload[: len(payload) // 2])
            h.wfile.flush()
            h.close_connection = True
            return
        delay = self.slow.get(path)
        if delay:
            for i in range(0, len(payload), 1024):
                h.wfile.write(payload[i : i + 1024])
                h.wfile.flush()
                time.sleep(delay)
        else:
            h.wfile.write(payload)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
