"""TopicNameMatches: true for records whose whole topic name matches a regular expression."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.config import kafka_non_empty_string as non_empty_string
from smt.java_regex import compile_java_regex
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import Predicate

KAFKA_PACKAGE = "org.apache.kafka.connect.transforms.predicates."


def _valid_regex(value: str) -> None:
    non_empty_string(value)
    try:
        compile_java_regex(value)
    except ValueError as exc:
        raise ValueError(f"entry must be a Java-compatible regular expression: {exc}") from None


class TopicNameMatches(Reconfigurable, Predicate):
    """True when the record's topic matches ``pattern`` in full (not just a prefix)."""

    name = "TopicNameMatches"
    aliases = (KAFKA_PACKAGE + "TopicNameMatches", "topicnamematches")
    config_def = ConfigDef().define(
        "pattern",
        ConfigType.STRING,
        REQUIRED,
        _valid_regex,
        Importance.MEDIUM,
        "A Java regular expression for matching against the name of a record's topic.",
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"topic"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.pattern = compile_java_regex(self.config["pattern"])

    def test(self, record: Record) -> bool:
        return record.topic is not None and self.pattern.fullmatch(record.topic) is not None

    def test_batch(self, batch: RecordBatch) -> list[bool]:
        memo: dict[str, bool] = {}
        fullmatch = self.pattern.fullmatch
        out = []
        for topic in batch.topic:
            found = memo.get(topic)
            if found is None:
                found = memo[topic] = topic is not None and fullmatch(topic) is not None
            out.append(found)
        return out
