"""TimestampRouter: route records to a topic named after the original topic and the record timestamp."""

from __future__ import annotations

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
        # Topics are memoised per (topic, time bucket): a day for yyyyMMdd, so one format call a day.
        granularity = self.date_format.granularity
        fmt = self.date_format.format
        topic_format = self.topic_format
        memo: dict[tuple[str, int], str] = {}
        out: list[str] = []
        append = out.append
        failed: list[int] = []
        for row, (topic, stamp) in enumerate(zip(batch.topic, batch.timestamp)):
            if stamp is None:
                errors.fail(row, DataError(f"Timestamp missing on record: topic={topic!r} row={row}"))
                failed.append(row)
                append(topic)
                continue
            key = (topic, stamp // granularity)
            routed = memo.get(key)
            if routed is None:
                try:
                    routed = memo[key] = topic_format.replace("${topic}", topic).replace("${timestamp}", fmt(stamp))
                except Exception as exc:  # attributed to its row (a record without a topic)
                    errors.fail(row, exc)
                    failed.append(row)
                    routed = topic
            append(routed)
        return finish_column(batch, "topic", out, failed)

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
