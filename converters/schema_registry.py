"""A client for the Confluent Schema Registry REST API (stdlib ``urllib``, no extra dependency).

It covers what a converter needs: a schema by id, registering a schema under
a subject, looking a schema up in a subject, and a subject's latest version.
Answers are cached for the client's lifetime (ids and registrations never
change in a registry), so a converter asks once per distinct schema.
Failures raise :class:`SchemaRegistryError` carrying the HTTP status and the
registry's ``error_code`` (40403: schema not found, 40401: subject not found).
"""

from __future__ import annotations

import base64
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from smt.errors import DataError

__all__ = ["RegisteredSchema", "SchemaRegistryClient", "SchemaRegistryError", "subject_name"]

_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


class SchemaRegistryError(DataError):
    """The registry refused a request or could not be reached."""

    def __init__(self, message: str, status: int | None = None, error_code: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = error_code

    @property
    def retriable(self) -> bool:
        """True when the registry was unreachable or failed on its side (5xx): a retry may pass."""
        return self.status is None or self.status >= 500


class RegisteredSchema:
    """A schema as the registry knows it: id, schema text and, within a subject, version."""

    __slots__ = ("id", "schema", "subject", "version")

    def __init__(self, id: int, schema: str, subject: str | None = None, version: int | None = None) -> None:
        self.id = id
        self.schema = schema
        self.subject = subject
        self.version = version

    def __repr__(self) -> str:
        return f"RegisteredSchema(id={self.id}, subject={self.subject!r}, version={self.version})"


def subject_name(topic: str, is_key: bool) -> str:
    """The subject for ``topic`` under the default TopicNameStrategy: ``<topic>-key`` / ``<topic>-value``."""
    return f"{topic}-{'key' if is_key else 'value'}"


class SchemaRegistryClient:
    """Talks to one registry at ``url`` (several comma-separated URLs: the first that answers)."""

    def __init__(
        self, url: str, *, timeout: float = 10.0, basic_auth: str | None = None, credentials_from_url: bool = True
    ) -> None:
        """``basic_auth`` is ``user:password``; without it, credentials in a URL
        (``http://user:password@host``) log in, as Confluent's client does by default
        (``basic.auth.credentials.source=URL``), unless ``credentials_from_url`` is
        False.  URLs are kept, and named in messages, without their credentials."""
        urls = [split_credentials(u.strip().rstrip("/")) for u in url.split(",") if u.strip()]
        if not urls:
            raise ValueError("schema registry url is empty")
        self.urls = [bare for bare, _ in urls]
        if credentials_from_url:
            basic_auth = basic_auth or next((credentials for _, credentials in urls if credentials), None)
        self.timeout = timeout
        self._auth = "Basic " + base64.b64encode(basic_auth.encode()).decode() if basic_auth else None
        self._by_id: dict[int, str] = {}
        self._ids: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    # Spark pickles converters to executors: the lock and caches start afresh there.
    def __getstate__(self) -> dict:
        return {"urls": self.urls, "timeout": self.timeout, "_auth": self._auth}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._by_id, self._ids, self._lock = {}, {}, threading.Lock()

    def schema_by_id(self, schema_id: int) -> str:
        """The schema text registered with ``schema_id``."""
        cached = self._by_id.get(schema_id)
        if cached is not None:
            return cached
        answer = self._request("GET", f"/schemas/ids/{schema_id}")
        text = answer["schema"]
        with self._lock:
            self._by_id[schema_id] = text
        return text

    def register(self, subject: str, schema: str) -> int:
        """Register ``schema`` under ``subject`` (idempotent); its id."""
        key = (subject, schema)
        cached = self._ids.get(key)
        if cached is not None:
            return cached
        answer = self._request("POST", f"/subjects/{_quote(subject)}/versions", {"schema": schema})
        return self._remember(key, answer["id"], schema)

    def lookup(self, subject: str, schema: str) -> RegisteredSchema:
        """The registration of ``schema`` in ``subject``; raises when it is not registered there."""
        answer = self._request("POST", f"/subjects/{_quote(subject)}", {"schema": schema})
        self._remember((subject, schema), answer["id"], schema)
        return RegisteredSchema(answer["id"], answer.get("schema", schema), subject, answer.get("version"))

    def latest(self, subject: str) -> RegisteredSchema:
        """The latest version registered under ``subject`` (not cached: it can change)."""
        answer = self._request("GET", f"/subjects/{_quote(subject)}/versions/latest")
        with self._lock:
            self._by_id[answer["id"]] = answer["schema"]
        return RegisteredSchema(answer["id"], answer["schema"], subject, answer.get("version"))

    def _remember(self, key: tuple[str, str], schema_id: int, schema: str) -> int:
        with self._lock:
            self._ids[key] = schema_id
            self._by_id.setdefault(schema_id, schema)
        return schema_id

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        last_error: Exception | None = None
        for base in self.urls:
            request = urllib.request.Request(base + path, data=data, method=method)
            request.add_header("Accept", _CONTENT_TYPE)
            if data is not None:
                request.add_header("Content-Type", _CONTENT_TYPE)
            if self._auth:
                request.add_header("Authorization", self._auth)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as exc:
                raise _registry_error(method, base + path, exc) from exc
            except (urllib.error.URLError, OSError) as exc:
                last_error = exc
        raise SchemaRegistryError(
            f"schema registry unreachable at {', '.join(self.urls)}: {last_error}"
        ) from last_error


def split_credentials(url: str) -> tuple[str, str | None]:
    """``url`` without its ``user:password@`` part, and that part (percent-decoded), or None."""
    parts = urllib.parse.urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return url, None
    user, _, password = userinfo.partition(":")
    bare = urllib.parse.urlunsplit(parts._replace(netloc=host))
    return bare, f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}"


def _quote(subject: str) -> str:
    return urllib.parse.quote(subject, safe="")


def _registry_error(method: str, url: str, exc: urllib.error.HTTPError) -> SchemaRegistryError:
    try:
        answer = json.loads(exc.read())
        code, message = answer.get("error_code"), answer.get("message", "")
    except Exception:
        code, message = None, exc.reason
    return SchemaRegistryError(
        f"schema registry answered {exc.code} to {method} {url}: {message} (error code {code})",
        status=exc.code,
        error_code=code,
    )
