"""A stand-in for the Confluent Schema Registry, for tests only: NOT a real registry.

No real registry can run here (Confluent's is not on Maven Central, Karapace
is not on PyPI, Apicurio publishes no runnable jar), so the client and the
AvroConverter are tested against this small HTTP server.  It implements just
the documented REST endpoints a converter uses, with the documented error
codes, and counts requests so tests can check caching.  Confluent's own
Python client (confluent-kafka) is pointed at the same server in the tests,
to show that bytes written by one side are read by the other.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


class RegistryStandIn:
    """Schemas by id and subjects with versions, in memory, served on 127.0.0.1."""

    def __init__(self) -> None:
        self.schemas: dict[int, str] = {}
        self.subjects: dict[str, list[int]] = {}
        self.requests: Counter = Counter()
        self.fail_with: int | None = None  # answer every request with this status (5xx tests)
        self.failures_left: int | None = None  # with fail_with: fail this many requests, then recover
        self.credentials: str | None = None  # "user:password": answer 401 to requests without them
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "RegistryStandIn":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def register(self, subject: str, schema: str) -> int:
        with self._lock:
            schema_id = next((i for i, s in self.schemas.items() if s == schema), None)
            if schema_id is None:
                schema_id = len(self.schemas) + 1
                self.schemas[schema_id] = schema
            versions = self.subjects.setdefault(subject, [])
            if schema_id not in versions:
                versions.append(schema_id)
            return schema_id

    def fail_next(self, count: int, status: int = 503) -> None:
        """Answer the next ``count`` requests with ``status``, as a registry that is restarting."""
        with self._lock:
            self.fail_with, self.failures_left = status, count

    def _fails_now(self) -> bool:
        with self._lock:
            if self.failures_left is None:
                return True
            if self.failures_left <= 0:
                return False
            self.failures_left -= 1
            return True

    def _handler(self):
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                self._dispatch("GET")

            def do_POST(self):
                self._dispatch("POST")

            def _dispatch(self, method):
                path = urlsplit(self.path).path
                registry.requests[(method, path)] += 1
                if registry.credentials is not None:
                    expected = "Basic " + base64.b64encode(registry.credentials.encode()).decode()
                    if self.headers.get("Authorization") != expected:
                        return self._send(401, {"error_code": 401, "message": "Unauthorized"})
                if registry.fail_with and registry._fails_now():
                    return self._send(registry.fail_with, {"error_code": 50001, "message": "Error in the backend"})
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                status, answer = registry._answer(method, path, body)
                self._send(status, answer)

            def _send(self, status, answer):
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def _answer(self, method: str, path: str, body):
        match = re.fullmatch(r"/schemas/ids/(\d+)", path)
        if method == "GET" and match:
            schema = self.schemas.get(int(match.group(1)))
            if schema is None:
                return 404, {"error_code": 40403, "message": "Schema not found"}
            return 200, {"schema": schema}
        match = re.fullmatch(r"/subjects/([^/]+)/versions", path)
        if method == "POST" and match:
            return 200, {"id": self.register(unquote(match.group(1)), body["schema"])}
        match = re.fullmatch(r"/subjects/([^/]+)/versions/latest", path)
        if method == "GET" and match:
            return self._version(unquote(match.group(1)), None)
        match = re.fullmatch(r"/subjects/([^/]+)", path)
        if method == "POST" and match:
            subject = unquote(match.group(1))
            if subject not in self.subjects:
                return 404, {"error_code": 40401, "message": f"Subject '{subject}' not found."}
            for version, schema_id in enumerate(self.subjects[subject], start=1):
                if self.schemas[schema_id] == body["schema"]:
                    return 200, {"subject": subject, "version": version, "id": schema_id, "schema": body["schema"]}
            return 404, {"error_code": 40403, "message": "Schema not found"}
        return 404, {"error_code": 404, "message": "HTTP 404 Not Found"}

    def _version(self, subject: str, version: int | None):
        versions = self.subjects.get(subject)
        if not versions:
            return 404, {"error_code": 40401, "message": f"Subject '{subject}' not found."}
        number = len(versions) if version is None else version
        schema_id = versions[number - 1]
        return 200, {"subject": subject, "version": number, "id": schema_id, "schema": self.schemas[schema_id]}
