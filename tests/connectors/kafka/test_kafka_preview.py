"""``smt preview`` on a Kafka source (#34 item 8): the first records of the topic, and no consumer group touched."""

from __future__ import annotations

import pytest

from smt.commands.preview import preview_records, read_records
from smt.pipeline import PipelineSpec

pytestmark = [pytest.mark.kafka, pytest.mark.spark]


@pytest.mark.timeout(300)
def test_a_kafka_preview_reads_the_first_records_and_commits_nothing(kafka_spark, kafka_broker):
    from confluent_kafka.admin import AdminClient

    topic = kafka_broker.create_topic(kafka_broker.unique_topic("preview"))
    kafka_broker.produce(topic, [{"key": f'"k{n}"', "value": f'{{"n": {n}}}'} for n in range(5)])
    spec = PipelineSpec.from_properties({
        "name": "preview-kafka", "source": "kafka", "source.topics": topic,
        "source.kafka.bootstrap.servers": kafka_broker.bootstrap_servers,
        "source.kafka.group.id": "connect-preview-kafka", "sink": "console",
        "key.converter": "json", "key.converter.schemas.enable": "false",
        "value.converter": "json", "value.converter.schemas.enable": "false",
        "transforms": "key", "transforms.key.type": "ValueToKey", "transforms.key.fields": "n",
    })  # fmt: skip
    records = read_records(spec, kafka_spark, 3)
    shown = preview_records(spec, records)
    assert shown.stopped is None
    assert [row["value"] for row in shown.written()] == [b'{"n":0}', b'{"n":1}', b'{"n":2}']
    assert [row["key"] for row in shown.written()] == [b'{"n":0}', b'{"n":1}', b'{"n":2}']
    groups = AdminClient({"bootstrap.servers": kafka_broker.bootstrap_servers}).list_consumer_groups().result(30)
    assert "connect-preview-kafka" not in {g.group_id for g in groups.valid}
