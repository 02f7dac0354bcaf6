"""A small local batch run starts its JVM with the quick JIT only.

Spark's JVM spends most of a short run's CPU compiling: HotSpot's optimising
compiler (C2) works on Spark's planner, code generator and writers while they
run once.  For a batch run on a ``local`` master whose input is a few local
files, ``-XX:TieredStopAtLevel=1`` (the quick compiler, C1, only) cut the CPU
of a whole ``spark-submit`` that reads and writes a small file by about a
third, and that time is most of a small run.  Compiled code is slower with C1
alone, so a run that reads more than :data:`SMALL_INPUT_BYTES`, reads
something whose size we cannot tell beforehand (Kafka, a generator, a
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
SMALL_INPUT_BYTES = 64 << 20

#: The JVM flag a small run starts with: the quick compiler only.
QUICK_JIT = "-XX:TieredStopAtLevel=1"

_JAVA_OPTIONS = "spark.driver.extraJavaOptions"

log = logging.getLogger(__name__)


def quick_start_conf(spec: Any, conf: dict[str, str]) -> dict[str, str]:
    """``conf`` (a pipeline's Spark settings) with :data:`QUICK_JIT` added when the run is small."""
    if spec.streaming or not is_local_master(conf.get("spark.master", "")):
        return conf
    paths = list(spec.source.input_paths().values()) if hasattr(spec.source, "input_paths") else []
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
