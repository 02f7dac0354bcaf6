"""Produce requests fed to a filter on a connection, as a proxy feeds a client's bytes.

One connection per batch: each request is appended to the downstream buffer
and the filter called once (``proxy_on_downstream_data``).  What it lets
through goes to ``forward`` with the requests it stands for; a request it holds
(Pause) stays buffered and the next one is appended behind it; at the end a
call with ``end_of_stream`` set asks for what is still held.  A failed call
ends the connection (and its instance): its held requests fail, or run again
on a fresh instance once when another call's time limit interrupted it or it
ran out of memory (a filter that leaks fills any memory in the end).
"""

from __future__ import annotations

from typing import Callable

from host_functions.proxy_wasm._instance import Fed, FilterFailed, FilterInstance, StartFailed
from host_functions.runtime.retry import RetryPolicy
from host_functions.runtime.sandbox import Settings

__all__ = ["RequestFeeder", "HELD_BACK", "CLOSED"]

HELD_BACK = "the filter held the Produce request back (it returned Pause and never continued the stream)"
CLOSED = "the filter closed the connection (proxy_close_stream) instead of passing the Produce request on"


class RequestFeeder:
    """Feeds one batch's requests (objects with ``data`` and ``rows``); every row ends forwarded or failed."""

    def __init__(
        self,
        instance: Callable[[], FilterInstance],
        settings: Settings,
        forward: Callable[[bytearray, list], None],
        fail: Callable[[int, str], None],
    ) -> None:
        self._new_instance, self.settings, self._forward, self._fail = instance, settings, forward, fail
        self.instance: FilterInstance | None = None
        self.connection: int | None = None
        self.pending: list = []  # fed, not yet forwarded
        self._retry = RetryPolicy()  # interrupts in a row; memory: once until a request gets through
        self._forwarded_bytes = 0  # bounded by max.output.bytes.per.batch

    def run(self, requests: list) -> None:
        at = 0
        try:
            while at < len(requests) or self.pending:
                request = requests[at] if at < len(requests) else None
                at += request is not None
                try:
                    fed = self._feed(request)
                except StartFailed as exc:
                    for failed in self.pending + requests[at:]:
                        self._fail_rows(failed, f"the filter cannot start: {exc.cause}")
                    self.pending.clear()
                    return
                except FilterFailed as exc:
                    at -= self._failed(exc)
                    continue
                self._fed(fed)
            self._close()
        finally:
            if self.instance is not None and self.connection is not None:
                self.instance.abandon()  # an unexpected error: the instance is not reused

    def _feed(self, request) -> Fed:
        """Feed ``request`` (None: end the stream) on the connection, opened first if need be."""
        if request is not None:
            self.pending.append(request)
        if self.connection is None:
            self.instance = self._new_instance()
            self.connection = self.instance.open()
        if request is not None:
            return self.instance.feed(self.connection, request.data)
        fed = self.instance.feed(self.connection, b"", end_of_stream=True)
        if fed.forwarded is None and not fed.closed:
            self._fail_pending(HELD_BACK)
        return fed

    def _failed(self, exc: FilterFailed) -> int:
        """Handle a failed call (the connection is gone); how many requests to feed again, on a fresh instance."""
        self.connection = None
        if not self._retry_on_fresh_instance(exc):
            self._retry.progressed()
            self._fail_pending(exc.cause)
            return 0
        again = len(self.pending)
        self.pending.clear()
        return again

    def _retry_on_fresh_instance(self, exc: FilterFailed) -> bool:
        if exc.memory_full is not None and self.pending and self._retry.retry_out_of_memory():
            self.settings.note_out_of_memory(exc.memory_full, None)
            return True
        return False

    def _fed(self, fed: Fed) -> None:
        if fed.forwarded is not None or fed.closed:
            self._retry.progressed()
        if fed.closed:
            self._fail_pending(CLOSED)
            self._close()
        elif fed.forwarded is not None:
            self._forwarded_bytes += len(fed.forwarded)
            if self._forwarded_bytes > self.settings.max_output_bytes_per_batch:
                self._fail_pending(self.settings.batch_outputs_too_big())
                return
            self._forward(fed.forwarded, self.pending)
            self.pending.clear()

    def _close(self) -> None:
        if self.connection is None:
            return
        instance, connection, self.connection = self.instance, self.connection, None
        try:
            instance.close_connection(connection)
        except FilterFailed as exc:  # every record is accounted for already; the instance is not reused
            self.settings.logger.warning(
                "wasm transform '%s': the filter failed closing a connection: %s", self.settings.alias, exc.cause
            )

    def _fail_pending(self, cause: str) -> None:
        for request in self.pending:
            self._fail_rows(request, cause)
        self.pending.clear()

    def _fail_rows(self, request, cause: str) -> None:
        for row in request.rows.tolist():
            self._fail(row, cause)
