"""Registers Debezium's transforms."""

from smt.plugins import hookimpl


@hookimpl
def smt_transforms():
    from smt.transforms.debezium import (
        by_logical_table_router,
        extract_changed_record_state,
        extract_new_record_state,
        header_to_value,
        partition_routing,
        timezone_converter,
    )
    from smt.transforms.debezium.outbox import event_router

    return [
        by_logical_table_router.ByLogicalTableRouter,
        extract_changed_record_state.ExtractChangedRecordState,
        extract_new_record_state.ExtractNewRecordState,
        event_router.EventRouter,
        header_to_value.HeaderToValue,
        partition_routing.PartitionRouting,
        timezone_converter.TimezoneConverter,
    ]
