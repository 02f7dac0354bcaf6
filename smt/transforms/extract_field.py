"""ExtractField: replace the key or value with one of its fields."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.errors import DataError
from smt.record import Record
from smt.transform import ErrorSink
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, parse_path, with_field_syntax
from smt.transforms._requirements import require_map_or_none, require_struct_or_none
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, define_replace_null
from smt.transforms._variant import PartTransform, key_value_variants, map_column

PURPOSE = "field extraction"


class ExtractField(PartTransform):
    """Replace the key or value with the field ``field`` (a dotted path with ``field.syntax.version=V2``).

    Schemaless: a missing field gives null. With a schema: an unknown field is a data error,
    and the result's schema is the field's. A tombstone stays a tombstone (with the field's
    schema when the record has one).
    """

    config_def = with_field_syntax(
        define_replace_null(
            ConfigDef().define("field", ConfigType.STRING, REQUIRED, None, Importance.MEDIUM, "Field name to extract.")
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.path = parse_path(self.config["field"], self.config[FIELD_SYNTAX_VERSION], self.context.prefix + "field")
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]

    def apply(self, record: Record) -> Record:
        schema, value = self.part.schema(record), self.part.value(record)
        if schema is None:
            found = require_map_or_none(value, PURPOSE)
            return self.part.new_record(record, None, None if found is None else self.path.get_from_map(found))
        struct = require_struct_or_none(value, PURPOSE)
        field = self.path.field_from(schema)
        if field is None:
            raise DataError(f"Unknown field: {self.config['field']}")
        extracted = None if struct is None else self.path.get_from_struct(struct, self.replace_null_with_default)
        return self.part.new_record(record, field.schema, extracted)

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        if not self.schemaless_batch(batch):
            return super().apply_batch(batch, errors)
        path = self.path
        if path.nested:
            get = path.get_from_map

            def extract(value):
                return None if value is None else get(require_map_or_none(value, PURPOSE))
        else:
            name = path.last

            def extract(value):
                if type(value) is dict:
                    return value.get(name)
                return None if value is None else require_map_or_none(value, PURPOSE).get(name)

        return map_column(batch, errors, self.part.name, extract)


ExtractFieldKey, ExtractFieldValue = key_value_variants(ExtractField, "ExtractField", __name__)
