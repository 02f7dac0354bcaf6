"""The Extism row of ``smt bench wasm``: a Rust-built to_upper plug-in of the record shape.

Ours: the ``wasm`` transform (``abi=extism``) over Arrow batches of ~40-byte values:
the Extism kernel linked into our wasmtime, one Wasm call per chunk of records and one
plug-in call per record inside it.  Baseline: a naive host on the same data, the
official ``extism`` Python SDK (its own wasmtime and kernel) called once per record,
with the record's JSON document built and its output parsed per record.  Target:
ours ≥ 100,000 records/s (an absolute figure: one plug-in call per record is Extism's
contract).

The plug-in is built from ``examples/wasm/extism/to_upper/rust`` (cargo, cached);
without cargo or the ``extism`` package the row is left out, with a note on stderr.
"""

from __future__ import annotations

import os
import sys
from typing import Callable

import pyarrow as pa

from smt.benchmarks._common import Comparison, measure, run_batches, value_batches, wasm_transform

__all__ = ["run", "paths", "TARGET_RECORDS_PER_SECOND"]

TARGET_RECORDS_PER_SECOND = 100_000
_PLUGIN = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "examples",
    "wasm",
    "extism",
    "to_upper",
    "rust",
)


def run(values: pa.Array, batch_rows: int) -> list[Comparison]:
    """The comparison over ``values`` (binary), or none when the plug-in or the SDK is not available."""
    try:
        ours, naive_host = paths(values, batch_rows)
    except Exception as exc:  # no cargo, no SDK: the other rows still run
        print(f"smt bench wasm: Extism row left out: {type(exc).__name__}: {exc}", file=sys.stderr)
        return []
    count = len(values)
    ours()  # compile and instantiate outside the timing
    naive_host()
    return [
        Comparison(
            "Extism to_upper (Rust plug-in), standalone",
            measure("wasm transform, abi=extism", count, ours, repeat=3),
            measure("extism SDK, a call per record", count, naive_host),
            target_rate=TARGET_RECORDS_PER_SECOND,
        )
    ]


def paths(values: pa.Array, batch_rows: int) -> tuple[Callable[[], list[bytes]], Callable[[], list[bytes]]]:
    """``(ours, naive_host)``: each runs to_upper over ``values`` and returns the output values.

    Raises when cargo (to build the plug-in) or the ``extism`` package is missing.
    """
    import extism
    import orjson

    from host_functions.extism.build import build_plugin

    module_path = str(build_plugin(_PLUGIN))
    batches = value_batches(values, batch_rows)
    transform = wasm_transform("to_upper", {"module.path": module_path})

    def ours() -> list[bytes]:
        return [value for out in run_batches(transform, batches) for value in out.value]

    plugin = extism.Plugin({"wasm": [{"path": module_path}]}, wasi=False)
    texts = [value.decode() for value in values.to_pylist()]

    def naive_host() -> list[bytes]:
        out = []
        for text in texts:
            document = orjson.dumps({"topic": "bench", "key": None, "value": text, "headers": []})
            out.append(orjson.loads(plugin.call("transform", document))[0]["value"].encode())
        return out

    return ours, naive_host
