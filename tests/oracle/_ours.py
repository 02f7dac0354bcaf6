"""The same cases as the oracle's, run by spark-smt the way a pipeline runs them.

``pipeline`` cases build a :class:`PipelineSpec` from the case's keys and
run the records through :class:`BatchProcessor` (converters in, the chain,
converters out, errors dead-lettered with their context headers): the code a
Spark task runs, without Spark.  Converter cases call the batch methods the
processor calls.  Results have the shape KafkaConnectOracle.java writes.
"""

from __future__ import annotations

import base64
from typing import Any

import converters
from smt.batch import RecordBatch
from smt.errors import ConfigError
from smt.pipeline.processor import DEAD_LETTER_COLUMN, BatchProcessor
from smt.pipeline.spec import PipelineSpec
from smt.record import Record

#: Around every case's own keys: a source and sink that touch nothing, and every failure
#: dead-lettered with Kafka Connect's context headers (never written: no Spark runs).
_HARNESS = {
    "source": "generator",
    "sink": "noop",
    "errors.tolerance": "all",
    "errors.deadletterqueue.path": "/nonexistent/oracle-dead-letters",
    "errors.deadletterqueue.context.headers.enable": "true",
}
_ENVELOPE = converters.load("json", {"schemas.enable": "true"})


def run(case: dict) -> dict:
    kind = case["kind"]
    if kind == "pipeline":
        return _pipeline(case)
    if kind == "to_connect":
        return _to_connect(case)
    return _from_connect(case)


def _pipeline(case: dict) -> dict:
    try:
        spec = PipelineSpec.from_properties({**_HARNESS, **case["config"]})
    except ConfigError as exc:
        return {"config_error": {"class": "ConfigError", "message": str(exc)}}
    records = [_record(r) for r in case["records"]]
    out, _ = BatchProcessor.from_spec(spec).process(RecordBatch.from_records(records).to_arrow())
    by_offset: dict[int, dict] = {}
    for row in out.to_pylist():
        if row[DEAD_LETTER_COLUMN]:
            headers = {
                h["key"]: (h["value"] or b"").decode()
                for h in row["headers"]
                if h["key"].startswith("__connect.errors.")
            }
            by_offset[row["offset"]] = {
                "error": {
                    "stage": headers["__connect.errors.stage"],
                    "class": headers["__connect.errors.exception.class.name"],
                    "message": headers["__connect.errors.exception.message"],
                }
            }
        else:
            by_offset[row["offset"]] = {
                "ok": {
                    "topic": row["topic"],
                    "partition": row["partition"],
                    "timestamp": _millis(row["timestamp"]),
                    "key": _b64(row["key"]),
                    "value": _b64(row["value"]),
                    "headers": [[h["key"], _b64(h["value"])] for h in row["headers"] or []],
                }
            }
    return {"records": [by_offset.get(r["offset"], {"dropped": True}) for r in case["records"]]}


def _record(data: dict) -> Record:
    return Record(
        topic=data["topic"],
        partition=data["partition"],
        offset=data["offset"],
        timestamp=data["timestamp"],
        key=_bytes(data["key"]),
        value=_bytes(data["value"]),
        headers=tuple((name, _bytes(value)) for name, value in data["headers"]),
    )


def _converter(case: dict) -> Any:
    return converters.load(case["converter"], dict(case["config"]), case["is_key"])


def _to_connect(case: dict) -> dict:
    try:
        converter = _converter(case)
    except ConfigError as exc:
        return {"config_error": {"class": "ConfigError", "message": str(exc)}}
    topic, data = case["topic"], [_bytes(d) for d in case["data"]]
    if case["header"]:
        results = []
        for item in data:
            try:
                results.append(converter.to_connect_header(topic, "h", item))
            except Exception as exc:
                results.append(exc)
    else:
        errors: dict[int, BaseException] = {}
        schemas, values = converter.to_connect_batch([topic] * len(data), data, errors.__setitem__)
        schemas = schemas or [None] * len(values)
        results = [errors.get(row, (schemas[row], values[row])) for row in range(len(data))]
    return {"items": [_observed(topic, result) for result in results]}


def _observed(topic: str, result: Any) -> dict:
    if isinstance(result, BaseException):
        return {"error": _error(result)}
    try:
        envelope = _ENVELOPE.from_connect_data(topic, *result)
        return {"ok": None if envelope is None else envelope.decode()}
    except Exception as exc:
        return {"error": {"class": "envelope", "message": str(exc)}}


def _from_connect(case: dict) -> dict:
    try:
        converter = _converter(case)
    except ConfigError as exc:
        return {"config_error": {"class": "ConfigError", "message": str(exc)}}
    topic = case["topic"]
    read = [_ENVELOPE.to_connect_data(topic, item.encode()) for item in case["items"]]
    if case["header"]:
        results = []
        for schema, value in read:
            try:
                results.append({"ok": _b64(converter.from_connect_header(topic, "h", schema, value))})
            except Exception as exc:
                results.append({"error": _error(exc)})
        return {"items": results}
    errors: dict[int, BaseException] = {}
    column = converter.from_connect_column(
        [topic] * len(read), [s for s, _ in read], [v for _, v in read], errors.__setitem__
    )
    written = column.to_pylist() if hasattr(column, "to_pylist") else list(column)
    return {
        "items": [
            {"error": _error(errors[row])} if row in errors else {"ok": _b64(written[row])} for row in range(len(read))
        ]
    }


def _error(exc: BaseException) -> dict:
    return {"class": type(exc).__name__, "message": str(exc)}


def _bytes(data: str | None) -> bytes | None:
    return None if data is None else base64.b64decode(data)


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def _millis(timestamp: Any) -> int | None:
    if timestamp is None:
        return None
    if isinstance(timestamp, int):
        return timestamp
    import datetime as dt

    delta = timestamp.replace(tzinfo=dt.timezone.utc) - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    return delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000
