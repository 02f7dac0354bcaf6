"""Registers the built-in transforms."""

from smt.plugins import hookimpl


@hookimpl
def smt_transforms():
    from smt.transforms import (
        cast,
        drop_headers,
        extract_field,
        filter,
        flatten,
        header_from,
        hoist_field,
        insert_field,
        insert_header,
        mask_field,
        regex_router,
        replace_field,
        set_schema_metadata,
        timestamp_converter,
        timestamp_router,
        value_to_key,
    )

    return [
        cast.CastKey,
        cast.CastValue,
        drop_headers.DropHeaders,
        extract_field.ExtractFieldKey,
        extract_field.ExtractFieldValue,
        filter.Filter,
        flatten.FlattenKey,
        flatten.FlattenValue,
        header_from.HeaderFromKey,
        header_from.HeaderFromValue,
        hoist_field.HoistFieldKey,
        hoist_field.HoistFieldValue,
        insert_field.InsertFieldKey,
        insert_field.InsertFieldValue,
        insert_header.InsertHeader,
        mask_field.MaskFieldKey,
        mask_field.MaskFieldValue,
        regex_router.RegexRouter,
        replace_field.ReplaceFieldKey,
        replace_field.ReplaceFieldValue,
        set_schema_metadata.SetSchemaMetadataKey,
        set_schema_metadata.SetSchemaMetadataValue,
        timestamp_converter.TimestampConverterKey,
        timestamp_converter.TimestampConverterValue,
        timestamp_router.TimestampRouter,
        value_to_key.ValueToKey,
    ]
