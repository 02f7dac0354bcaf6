"""RegexRouter: rewrite the topic with a regular expression and a replacement."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.java_regex import compile_java_regex, java_replacement
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import ErrorSink, Transform
from smt.transforms._topics import map_topics
from smt.transforms._variant import KAFKA_PACKAGE


class RegexRouter(Reconfigurable, Transform):
    """When the whole topic matches ``regex``, replace it with ``replacement`` (``$1`` = group 1).

    Topics that do not match are left as they are; a tombstone is routed like any record.
    """

    name = "RegexRouter"
    aliases = (KAFKA_PACKAGE + "RegexRouter", "regexrouter")
    config_def = (
        ConfigDef()
        .define(
            "regex",
            ConfigType.STRING,
            REQUIRED,
            compile_java_regex,
            Importance.HIGH,
            "Regular expression to use for matching.",
        )
        .define("replacement", ConfigType.STRING, REQUIRED, None, Importance.HIGH, "Replacement string.")
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"topic"})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"topic"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.regex = compile_java_regex(self.config["regex"])
        self.replacement = java_replacement(self.config["replacement"])
        self._memo: dict[str, str] = {}

    def route(self, topic: str) -> str:
        found = self._memo.get(topic)
        if found is None:
            # Kafka checks matches() (whole topic) and then calls replaceFirst(), which replaces
            # the first match found by a search: for "a|ab" on "ab" that is "a", not "ab".
            found = self.regex.sub(self.replacement, topic, count=1) if self.regex.fullmatch(topic) else topic
            if len(self._memo) > 4096:
                self._memo.clear()
            self._memo[topic] = found
        return found

    def apply(self, record: Record) -> Record:
        return record.replace(topic=self.route(record.topic))

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        route = self.route
        return map_topics(batch, errors, lambda topic, _stamp: route(topic), needs_timestamp=False)
