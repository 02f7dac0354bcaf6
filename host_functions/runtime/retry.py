"""The one retry rule: when a failed guest call runs again on a fresh instance.

A guest that runs out of memory gets one more try on a fresh instance per
record: a guest that leaks fills any limit in the end, which is not that
record's fault.  Anything else fails the record (or the start).  A timeout
is never retried, and another call's timeout never reaches this call (see
:mod:`host_functions.runtime.watchdog`).

Every ABI's runner asks a :class:`RetryPolicy`; none writes the rule itself.
"""

from __future__ import annotations

from typing import Hashable

__all__ = ["RetryPolicy"]

_NO_RECORD = object()


class RetryPolicy:
    """Remembers one runner's retries and answers whether a failed call runs again.

    Keep one per unit of work the runner retries (a record, a chunk of
    records); tell it :meth:`progressed` when work got done since the last
    failure, so that a record may be retried afresh.
    """

    __slots__ = ("_memory_retried",)

    def __init__(self) -> None:
        self._memory_retried: object = _NO_RECORD

    def retry_out_of_memory(self, record: Hashable = None) -> bool:
        """True the first time ``record`` ran out of memory (since the last :meth:`progressed`): it runs again."""
        if self._memory_retried == record:
            return False
        self._memory_retried = record
        return True

    def progressed(self) -> None:
        """Work got done since the last failure: a record may again be retried once for running out of memory."""
        self._memory_retried = _NO_RECORD
