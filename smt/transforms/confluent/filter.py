"""Confluent's Filter: keep or drop records by whether a JsonPath predicate matches the key or value."""

from __future__ import annotations

from typing import Any, ClassVar

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, one_of
from smt.errors import DataError
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import Transform
from smt.transforms._variant import VALUE, Part
from smt.transforms.confluent._json_path import PathNotFound, compile_path, json_document
from smt.transforms.confluent._variants import confluent_variants

FILTER_CONDITION = "filter.condition"
FILTER_TYPE = "filter.type"
MISSING_OR_NULL_BEHAVIOR = "missing.or.null.behavior"
FILTER_TYPES = ("include", "exclude")
MISSING_OR_NULL_BEHAVIORS = ("fail", "include", "exclude")


class ConfluentFilter(Reconfigurable, Transform):
    """Keep (``filter.type=include``) or drop (``exclude``) the records on whose key or value the JsonPath
    ``filter.condition`` matches; ``missing.or.null.behavior`` decides for a record that lacks the path.

    The path is read as Jayway JsonPath reads it: a filter ``[?(...)]`` on an object tests the object
    itself (``$[?(@.shop == 'us')]`` matches a value whose ``shop`` is ``us``), a definite path that
    names a member the record lacks is *missing*, and a null or absent field inside a filter simply
    does not match.  A struct is read as the map of its fields.  A null key or value (a tombstone)
    passes unchanged.
    """

    part: ClassVar[Part] = VALUE
    config_def = (
        ConfigDef()
        .define(
            FILTER_CONDITION,
            ConfigType.STRING,
            REQUIRED,
            None,
            Importance.HIGH,
            "The criteria used to match records to be included or excluded: a JsonPath predicate "
            "(https://github.com/json-path/JsonPath).",
        )
        .define(
            FILTER_TYPE,
            ConfigType.STRING,
            REQUIRED,
            one_of(*FILTER_TYPES, case_sensitive=False),
            Importance.HIGH,
            "The action for records that match filter.condition: include passes the records that match and "
            "drops the others, exclude drops the records that match.",
        )
        .define(
            MISSING_OR_NULL_BEHAVIOR,
            ConfigType.STRING,
            "fail",
            one_of(*MISSING_OR_NULL_BEHAVIORS, case_sensitive=False),
            Importance.MEDIUM,
            "What to do with a record that lacks the field(s) filter.condition names: fail the record, "
            "include (pass) it or exclude (drop) it.",
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.condition = compile_path(self.config[FILTER_CONDITION], self.context.prefix + FILTER_CONDITION)
        self.include = self.config[FILTER_TYPE].lower() == "include"
        self.missing = self.config[MISSING_OR_NULL_BEHAVIOR].lower()

    def input_fields(self) -> frozenset[str]:
        return frozenset({self.part.name, self.part.schema_name})

    def changed_fields(self) -> frozenset[str]:
        return frozenset()

    def apply(self, record: Record) -> Record | None:
        value = self.part.value(record)
        if value is None:
            return record
        return None if self._drops(record, self._document(record, value)) else record

    def _document(self, record: Record, value: Any) -> Any:
        return json_document(value, self.part.schema(record) is not None, "filtering")

    def _drops(self, record: Record, document: Any) -> bool:
        try:
            found = self.condition.read(document)
        except PathNotFound as exc:
            if self.missing == "fail":
                raise DataError(
                    f"Unable to apply the JSON Path filter condition `{self.condition.text}` to the {self.part.name} "
                    f"of the record (topic {record.topic}, partition {record.partition}, offset {record.offset}): "
                    f"{exc}. Set {self.context.prefix}{MISSING_OR_NULL_BEHAVIOR} to include or exclude to change "
                    "how the transform handles this condition."
                ) from None
            return self.missing == "exclude"
        # Jayway reads with ALWAYS_RETURN_LIST: a definite path that resolves (to null too) is one match.
        matched = self.condition.definite or bool(found)
        return not matched if self.include else matched


ConfluentFilterKey, ConfluentFilterValue = confluent_variants(ConfluentFilter, "Filter", "ConfluentFilter", __name__)
