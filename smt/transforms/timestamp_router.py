"""TimestampRouter: route records to a topic named after the original topic and the record timestamp."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from smt.batch import RecordBatch
from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import ConfigError, DataError
from smt.record import Record
from smt.timeformat import DateFormatError, compile_pattern
from smt.transform import ErrorSink, Transform
from smt.transforms._reconfigure import Reconfigurable
from smt.transforms._variant import KAFKA_PACKAGE, finish_column


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
        .define("topic.format", ConfigType.STRING, "${topic}-${timestamp}", None, Importance.HIGH,
                "Format string which can contain ${topic} and ${timestamp} as placeholders for "
                "the topic and timestamp, respectively.")
        .define("timestamp.format", ConfigType.STRING, "yyyyMMdd", None, Importance.HIGH,
                "Format string for the timestamp that is compatible with java.text.SimpleDateFormat.")
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"topic", "timestamp"})

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
        millis, null_stamps = batch.timestamp_millis()
        encoded = pc.dictionary_encode(topics, null_encoding="encode")
        names = encoded.dictionary.to_pylist()
        topic_ids = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        buckets, bucket_ids = np.unique(millis // self.date_format.granularity, return_inverse=True)
        groups = topic_ids * len(buckets) + bucket_ids.reshape(-1)
        if null_stamps is not None:
            groups[null_stamps] = -1
        codes, first_rows, group_of_row = np.unique(groups, return_index=True, return_inverse=True)
        routed, failing = [], []
        for group, (code, row) in enumerate(zip(codes.tolist(), first_rows.tolist())):
            topic = names[code // len(buckets)] if code >= 0 else None
            try:
                routed.append(None if code < 0 else self._route(topic, int(millis[row])))
            except Exception:  # every row of the group fails, each with its own error below
                routed.append(None)
                failing.append(group)
        out = pa.array(routed, pa.string()).take(pa.array(group_of_row.reshape(-1)))
        failed = self._report_failures(batch, topics, millis, group_of_row.reshape(-1), codes, failing, errors)
        return finish_column(batch, "topic", out, failed)

    def _report_failures(self, batch, topics, millis, group_of_row, codes, failing, errors) -> list[int]:
        bad_groups = [group for group, code in enumerate(codes.tolist()) if code < 0] + failing
        if not bad_groups:
            return []
        failed = np.flatnonzero(np.isin(group_of_row, bad_groups)).tolist()
        for row in failed:
            topic = topics[row].as_py()
            if codes[group_of_row[row]] < 0:
                errors.fail(row, DataError(f"Timestamp missing on record: topic={topic!r} row={row}"))
                continue
            try:
                self._route(topic, int(millis[row]))
            except Exception as exc:  # attributed to its row (a record without a topic)
                errors.fail(row, exc)
        return failed


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
