"""Reading ``module.path``: a regular file of bounded size, or a clear refusal.

A module is read once, on the driver, when the transform is configured.  A
path to a device (``/dev/zero`` never ends), a FIFO (opening it waits for a
writer) or a huge file must not hang or exhaust the driver: only regular files
are read, opened without blocking, and at most ``module.max.bytes`` of them.
"""

from __future__ import annotations

import os
import stat

from smt.errors import ConfigError

__all__ = ["read_module"]


def read_module(path: str, max_bytes: int, key_prefix: str) -> bytes:
    """The bytes of the module at ``path``; ConfigError naming ``{key_prefix}module.path`` otherwise."""
    key = f"{key_prefix}module.path"

    def refuse(reason: str) -> ConfigError:
        return ConfigError.for_key(key, f"cannot read WebAssembly module '{path}': {reason}", path)

    try:
        kind = os.stat(path).st_mode
    except OSError as exc:
        raise refuse(exc.strerror or str(exc)) from exc
    if not stat.S_ISREG(kind):
        raise refuse(f"it is {_kind(kind)}, not a regular file")
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO since the check, opening must not wait
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise refuse(exc.strerror or str(exc)) from exc
    with os.fdopen(descriptor, "rb") as source:
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            raise refuse("it is not a regular file")
        try:
            data = source.read(max_bytes + 1)
        except OSError as exc:  # a file that says regular but cannot be read (/proc/self/mem: EIO)
            raise refuse(exc.strerror or str(exc)) from exc
    if len(data) > max_bytes:
        raise ConfigError.for_key(
            f"{key_prefix}module.max.bytes",
            f"WebAssembly module '{path}' is larger than module.max.bytes={max_bytes}",
            str(max_bytes),
        )
    return data


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "a special file"
