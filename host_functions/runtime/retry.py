"""The one retry rule: when a failed guest call runs again on a fresh instance.

Every store shares the engine's epoch, so the watchdog interrupting one call
(its ``timeout.ms`` passed) interrupts whatever else runs at that moment.  A
call interrupted *without* its own watch having fired did nothing wrong: it
runs again on a fresh instance, at most :data:`SPURIOUS_RETRIES` times in a
row.  A guest that runs out of memory gets one more try on a fresh instance
per record too: a guest that leaks fills any limit in the end, which is not
that record's fault.  Anything else fails the record (or the start).

Every ABI's runner asks a :class:`RetryPolicy`; none writes the rule itself.
"""

from __future__ import annotations

from typing import Hashable

import wasmtime

__all__ = ["SPURIOUS_RETRIES", "RetryPolicy", "interrupted", "INTERRUPTED_REPEATEDLY"]

#: Retries in a row of a call interrupted because another store's call timed out.
SPURIOUS_RETRIES = 3

#: The cause given when the retries ran out.
INTERRUPTED_REPEATEDLY = "interrupted repeatedly by other transforms' timeouts"

_NO_RECORD = object()


def interrupted(exc: BaseException | None) -> bool:
    """Whether ``exc`` is the epoch interrupt the watchdog causes (this call's timeout or another's)."""
    return getattr(exc, "trap_code", None) == wasmtime.TrapCode.INTERRUPT


class RetryPolicy:
    """Counts one runner's retries and answers whether a failed call runs again.

    Keep one per unit of work the runner retries (a start, a record, a chunk
    of records); tell it :meth:`progressed` when work got done since the last
    failure, so that interrupts are counted afresh.
    """

    __slots__ = ("limit", "_interrupts", "_memory_retried")

    def __init__(self, limit: int = SPURIOUS_RETRIES) -> None:
        self.limit = limit
        self._interrupts = 0
        self._memory_retried: object = _NO_RECORD

    def retry_interrupted(self, interrupted_by_other: bool) -> bool:
        """True when a call stopped by another call's timeout (``interrupted_by_other``) runs again.

        Counted: after :attr:`limit` retries in a row the answer is False and
        :meth:`exhausted` says why.
        """
        if not interrupted_by_other or self._interrupts >= self.limit:
            return False
        self._interrupts += 1
        return True

    def retry_interrupt(self, exc: BaseException | None, *, timed_out: bool) -> bool:
        """:meth:`retry_interrupted` for ``exc``: an interrupt that is not this call's own timeout."""
        return self.retry_interrupted(interrupted(exc) and not timed_out)

    def exhausted(self, interrupted_by_other: bool) -> bool:
        """True when a call stopped by another call's timeout may not run again: the retries ran out."""
        return interrupted_by_other and self._interrupts >= self.limit

    def retry_out_of_memory(self, record: Hashable = None) -> bool:
        """True the first time ``record`` ran out of memory (since the last :meth:`progressed`): it runs again."""
        if self._memory_retried == record:
            return False
        self._memory_retried = record
        return True

    def progressed(self, *, memory: bool = True) -> None:
        """Work got done since the last failure: interrupts count afresh (and, unless ``memory`` is False,
        a record may again be retried once for running out of memory)."""
        self._interrupts = 0
        if memory:
            self._memory_retried = _NO_RECORD
