"""Where dead letters go: a file location (JSON lines, the file connector's
:class:`connectors.file.dead_letters.FileDeadLetters`) or a Kafka topic (the
Kafka connector's :class:`connectors.kafka.dead_letters.TopicDeadLetters`).

Both are sinks (:class:`smt.connector.Sink`), opened like the pipeline's sink.  A
topic's writer has :class:`smt.connector_roles.RecordChecks`: the dead letters
the queue itself cannot take (a Kafka topic's producer limits).  The batch
processor logs and drops those, as Kafka Connect's dead-letter reporter does,
rather than fail the whole run.
"""

from __future__ import annotations

from typing import Any, Mapping

from smt._chain_builder import sub_configs
from smt.plugin import PluginContext


def build_dead_letters(policy: Any, props: Mapping[str, Any], sink_name: str | None, sink: Any = None) -> Any:
    """The dead-letter writer ``policy`` asks for, or None.

    A dead-letter folder follows the ``sink``'s ``write.mode`` when it has
    one (a rerun that replaces its output replaces its dead letters, instead
    of piling them up); otherwise (or when the sink upserts) a batch run appends to it.

    Raises :class:`smt.errors.ConfigError` naming the ``errors.deadletterqueue.*``
    key when a dead-letter topic cannot be configured.
    """
    if not policy.tolerates_all or not policy.dead_letters:
        return None
    if policy.dlq_path:
        from connectors.file.dead_letters import FileDeadLetters

        write_mode = sink.config.get("write.mode") if sink is not None else None
        if write_mode is None or write_mode == "upsert":  # an upsert keeps the table's rows: the letters pile up too
            return FileDeadLetters(policy.dlq_path)
        return FileDeadLetters(policy.dlq_path, write_mode, f"{sink.context.prefix}write.mode")
    from connectors.kafka.dead_letters import DEAD_LETTER_PREFIX, TopicDeadLetters

    return TopicDeadLetters(_kafka_sink(policy, props, sink_name, DEAD_LETTER_PREFIX), policy.dlq_topic)


def _kafka_sink(policy: Any, props: Mapping[str, Any], sink_name: str | None, prefix: str) -> Any:
    from smt.plugins import default_plugins

    sink = default_plugins().get("sink", "kafka")()
    sink.configure(
        {**dead_letter_kafka_settings(props, sink_name), "topic": policy.dlq_topic},
        PluginContext(alias="dead-letter-queue", prefix=prefix),
    )
    return sink


def dead_letter_kafka_settings(props: Mapping[str, Any], sink_name: str | None) -> dict[str, Any]:
    """The ``kafka.*`` settings of the dead-letter producer.

    ``errors.deadletterqueue.kafka.*`` keys override the Kafka sink's own
    ``sink.kafka.*`` settings of the same name, so one key (a larger
    ``max.request.size``) does not force all the others.  A dead-letter queue
    that names its own ``bootstrap.servers`` is another cluster: it inherits
    nothing, so the sink's credentials never go to it.
    """
    own = {k: v for k, v in sub_configs(props, "errors.deadletterqueue.").items() if k.startswith("kafka.")}
    if "kafka.bootstrap.servers" in own or sink_name != "kafka":
        return own
    inherited = {k: v for k, v in sub_configs(props, "sink.").items() if k.startswith("kafka.")}
    return {**inherited, **own}
