"""Registers Confluent's transforms."""

from smt.plugins import hookimpl


@hookimpl
def smt_transforms():
    from smt.transforms.confluent import tombstone_handler

    return [tombstone_handler.TombstoneHandler]
