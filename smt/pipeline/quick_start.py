"""A small local batch run starts its JVM with the quick JIT only.

A short run's JVM spends much of its CPU in HotSpot's optimising compiler
(C2), compiling Spark's planner, code generator and writers that then run
once.  ``-XX:TieredStopAtLevel=1`` (the quick compiler, C1, only) cut the CPU
of a whole ``spark-submit`` that reads and writes a small file by about a
third (18.3 s to 12.2 s on a shared 2-core machine), and so did it for
``smt run`` of the quickstart.  Code compiled by C1 alone runs slower, so only
a run whose input is at most :data:`SMALL_INPUT_BYTES` of local files, in batch
mode on a ``local`` master, gets it (the break-even was not measured; the
limit is set low, where a run is mostly its start).  A run that reads more,
reads something whose size cannot be told beforehand (Kafka, a generator, a
URI or a glob), streams, or runs on a cluster keeps the JVM's defaults.

The flag goes first in ``spark.driver.extraJavaOptions``, before any of the
user's: a later flag wins, so ``-XX:TieredStopAtLevel=4`` there keeps the full
JIT for a small run too.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Iterable

from smt.pipeline.cluster import is_local_master

__all__ = ["QUICK_JIT", "SMALL_INPUT_BYTES", "quick_start_conf"]

#: At most this many bytes of input make a run small.
SMALL_INPUT_BYTES = 16 << 20

#: The JVM flag a small run starts with: the quick compiler only.
QUICK_JIT = "-XX:TieredStopAtLevel=1"

_JAVA_OPTIONS = "spark.driver.extraJavaOptions"

log = logging.getLogger(__name__)


def quick_start_conf(spec: Any, conf: dict[str, str]) -> dict[str, str]:
    """``conf`` (a pipeline's Spark settings) with :data:`QUICK_JIT` added when the run is small."""
    if spec.streaming or not is_local_master(conf.get("spark.master", "")):
        return conf
    paths = list(spec.source.input_paths().values())
    size = _local_bytes(paths)
    if size is None or size > SMALL_INPUT_BYTES:
        return conf
    log.info("a small run (%d bytes of input): Spark's JVM starts with %s", size, QUICK_JIT)
    theirs = conf.get(_JAVA_OPTIONS, "")
    return {**conf, _JAVA_OPTIONS: f"{QUICK_JIT} {theirs}".strip()}


def _local_bytes(paths: Iterable[str]) -> int | None:
    """The size of the local files and folders ``paths`` name, or None when any is not one (or none is given)."""
    total, seen = 0, False
    try:
        for path in paths:
            if not os.path.exists(path):  # a URI, a glob, or missing: Spark tells
                return None
            seen = True
            if os.path.isfile(path):
                total += os.path.getsize(path)
                continue
            for folder, _, names in os.walk(path):
                total += sum(os.path.getsize(os.path.join(folder, name)) for name in names)
                if total > SMALL_INPUT_BYTES:
                    return total
    except OSError:  # a file that went away while we looked: the run will tell
        return None
    return total if seen else None
