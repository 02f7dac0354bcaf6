"""TimestampRouter: route records to a topic named after the original topic and the record timestamp."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from smt.batch import RecordBatch
from smt.codegen import finish_column
from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import ConfigError, DataError
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.timeformat import DateFormatError, compile_pattern
from smt.transform import ErrorSink, Transform
from smt.transforms._variant import KAFKA_PACKAGE


class TimestampRouter(Reconfigurable, Transform):
    """Rename the topic to ``topic.format`` with ``${topic}`` and ``${timestamp}`` filled in.

    The timestamp is the record's, formatted with the Java SimpleDateFormat pattern
    ``timestamp.format`` in UTC: topic ``test`` at 1483425001864 becomes ``test-20170103``.
    A record without a timestamp is a data error; a tombstone is routed like any record.
    """

    name = "TimestampRouter"
    aliases = (KAFKA_PACKAGE + "TimestampRouter", "timestamprouter")
    config_def = (
        ConfigDef()
        .define(
            "topic.format",
            ConfigType.STRING,
            "${topic}-${timestamp}",
            None,
            Importance.HIGH,
            "Format string which can contain ${topic} and ${timestamp} as placeholders for "
            "the topic and timestamp, respectively.",
        )
        .define(
            "timestamp.format",
            ConfigType.STRING,
            "yyyyMMdd",
            None,
            Importance.HIGH,
            "Format string for the timestamp that is compatible with java.text.SimpleDateFormat.",
        )
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"topic", "timestamp"})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"topic"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.topic_format = self.config["topic.format"]
        try:
            self.date_format = compile_pattern(self.config["timestamp.format"])
        except DateFormatError as exc:
            raise ConfigError.for_key(self.context.prefix + "timestamp.format", str(exc)) from exc
        self._route = _router(self.topic_format, self.date_format)

    def apply(self, record: Record) -> Record:
        if record.timestamp is None:
            raise DataError(f"Timestamp missing on record: {record}")
        return record.replace(topic=self._route(record.topic, record.timestamp))

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        # Whole columns: each row's time bucket (a day for yyyyMMdd) comes from the
        # Arrow timestamps, each distinct (topic, bucket) is formatted once, and the
        # new topic column is built by Arrow from those few names.
        if len(batch) == 0:
            return batch
        try:
            topics = _string_array(batch.arrow_column("topic", pa.string()))
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # topics that are not strings: row by row
            return super().apply_batch(batch, errors)
        encoded = pc.dictionary_encode(topics, null_encoding="encode")
        names = encoded.dictionary.to_pylist()
        millis, null_stamps = batch.timestamp_millis()
        granularity = self.date_format.granularity
        group_of_row, keys = _groups(encoded.indices.to_numpy(zero_copy_only=False), millis // granularity, null_stamps)
        routed, bad_groups = [], []
        for group, key in enumerate(keys):
            try:
                if key is None:
                    raise DataError("Timestamp missing on record")
                routed.append(self._route(names[key[0]], key[1] * granularity))
            except Exception:  # every row of the group fails, each with its own error below
                routed.append(None)
                bad_groups.append(group)
        out = pa.array(routed, pa.string()).take(pa.array(group_of_row))
        failed = np.flatnonzero(np.isin(group_of_row, bad_groups)).tolist() if bad_groups else []
        for row in failed:
            self._fail_row(batch, row, topics[row].as_py(), null_stamps, millis, errors)
        return finish_column(batch, "topic", out, failed)

    def _fail_row(self, batch: RecordBatch, row: int, topic, null_stamps, millis, errors: ErrorSink) -> None:
        if null_stamps is not None and null_stamps[row]:
            # The record path's message (Kafka's): the dead letter's error must not depend on the path.
            errors.fail(row, DataError(f"Timestamp missing on record: {batch.record(row)}"))
            return
        try:
            self._route(topic, int(millis[row]))
        except Exception as exc:  # attributed to its row (a record without a topic)
            errors.fail(row, exc)


def _groups(topic_ids: np.ndarray, buckets: np.ndarray, null_rows: np.ndarray | None) -> tuple[np.ndarray, list]:
    """Number the distinct (topic id, bucket) pairs of the rows.

    Returns each row's group and each group's key: ``(topic id, bucket)``, or
    None for the group of the rows without a timestamp.
    """
    valid = buckets if null_rows is None else buckets[~null_rows]
    low = int(valid.min()) if len(valid) else 0
    span = int(valid.max()) - low + 1 if len(valid) else 1
    topic_count = int(topic_ids.max()) + 1
    null_code = topic_count * span
    codes = topic_ids.astype(np.int64) * span + (buckets - low)
    if null_rows is not None:
        codes[null_rows] = null_code
    if null_code <= 4 * len(codes) + 4096:
        # Few distinct codes in a small range (the usual case): number them without sorting.
        present = np.zeros(null_code + 1, dtype=bool)
        present[codes] = True
        distinct = np.flatnonzero(present)
        numbering = np.empty(null_code + 1, dtype=np.int64)
        numbering[distinct] = np.arange(len(distinct))
        group_of_row = numbering[codes]
    else:
        distinct, group_of_row = np.unique(codes, return_inverse=True)
    keys = [None if code == null_code else (code // span, low + code % span) for code in distinct.tolist()]
    return group_of_row.reshape(-1), keys


def _string_array(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return column if column.type == pa.string() else column.cast(pa.string())


def _router(topic_format: str, date_format):
    """A function (topic, millis) -> new topic, memoised on (topic, formatted timestamp)."""
    memo: dict[tuple[str, str], str] = {}
    fmt = date_format.format

    def route(topic: str, millis: int) -> str:
        stamp = fmt(millis)
        key = (topic, stamp)
        found = memo.get(key)
        if found is None:
            found = topic_format.replace("${topic}", topic).replace("${timestamp}", stamp)
            if len(memo) > 4096:
                memo.clear()
            memo[key] = found
        return found

    return route
