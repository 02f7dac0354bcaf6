"""Registers Confluent's transforms."""

from smt.plugins import hookimpl


@hookimpl
def smt_transforms():
    from smt.transforms.confluent import extract_topic, filter, tombstone_handler

    return [
        extract_topic.ExtractTopicKey,
        extract_topic.ExtractTopicValue,
        extract_topic.ExtractTopicHeader,
        filter.ConfluentFilterKey,
        filter.ConfluentFilterValue,
        tombstone_handler.TombstoneHandler,
    ]
