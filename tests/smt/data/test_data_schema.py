"""Schema, SchemaBuilder and Field: Kafka's builder rules, immutability and hashing."""

import pickle

import pytest

from smt.data import Decimal, Field, Schema, SchemaBuilder, SchemaBuilderError, Type
from smt.errors import DataError


def person_schema():
    return (
        SchemaBuilder.struct()
        .name("com.example.Person")
        .version(2)
        .doc("a person")
        .field("name", Schema.STRING_SCHEMA)
        .field("age", SchemaBuilder.int32().optional())
        .build()
    )


class TestPredefined:
    @pytest.mark.parametrize(
        "schema, type_, optional",
        [
            (Schema.INT8_SCHEMA, Type.INT8, False),
            (Schema.OPTIONAL_INT64_SCHEMA, Type.INT64, True),
            (Schema.STRING_SCHEMA, Type.STRING, False),
            (Schema.OPTIONAL_STRING_SCHEMA, Type.STRING, True),
            (Schema.BYTES_SCHEMA, Type.BYTES, False),
            (Schema.OPTIONAL_FLOAT64_SCHEMA, Type.FLOAT64, True),
            (Schema.BOOLEAN_SCHEMA, Type.BOOLEAN, False),
        ],
    )
    def test_type_and_optional(self, schema, type_, optional):
        assert schema.type is type_
        assert schema.optional is optional
        assert schema.name is None and schema.default is None

    def test_type_prints_like_kafka_enum(self):
        assert str(Type.INT32) == "INT32"
        assert Type.INT32.value == "int32"


class TestBuilder:
    def test_struct_fields_in_order_with_indexes(self):
        schema = person_schema()
        assert [(f.name, f.index) for f in schema.fields] == [("name", 0), ("age", 1)]
        assert schema.field("age").schema == Schema.OPTIONAL_INT32_SCHEMA
        assert schema.field("missing") is None
        assert (schema.name, schema.version, schema.doc) == ("com.example.Person", 2, "a person")

    def test_array_and_map(self):
        array = SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build()
        assert array.value_schema == Schema.STRING_SCHEMA and array.optional
        mapping = SchemaBuilder.map(Schema.STRING_SCHEMA, SchemaBuilder.int64()).build()
        assert mapping.key_schema == Schema.STRING_SCHEMA
        assert mapping.value_schema == Schema.INT64_SCHEMA

    def test_parameters(self):
        schema = SchemaBuilder.string().parameter("a", "1").parameters({"b": "2"}).build()
        assert dict(schema.parameters) == {"a": "1", "b": "2"}
        with pytest.raises(TypeError):
            schema.parameters["c"] = "3"

    def test_setting_twice_is_rejected(self):
        with pytest.raises(SchemaBuilderError, match="Invalid SchemaBuilder call: name has already been set."):
            SchemaBuilder.string().name("a").name("b")

    def test_duplicate_field_is_rejected(self):
        builder = SchemaBuilder.struct().field("a", Schema.STRING_SCHEMA)
        with pytest.raises(SchemaBuilderError, match="Cannot create field because of field name duplication a"):
            builder.field("a", Schema.INT8_SCHEMA)

    def test_field_on_non_struct_is_rejected(self):
        with pytest.raises(SchemaBuilderError, match="Cannot create fields on type STRING"):
            SchemaBuilder.string().field("a", Schema.STRING_SCHEMA)

    def test_null_schemas_are_rejected(self):
        with pytest.raises(SchemaBuilderError, match="valueSchema cannot be null."):
            SchemaBuilder.array(None)
        with pytest.raises(SchemaBuilderError, match="keySchema cannot be null."):
            SchemaBuilder.map(None, Schema.STRING_SCHEMA)

    def test_default_must_fit(self):
        assert SchemaBuilder.int32().default_value(7).build().default == 7
        with pytest.raises(SchemaBuilderError, match="Invalid default value"):
            SchemaBuilder.int32().default_value("seven")

    def test_kafka_spellings(self):
        assert SchemaBuilder.bool().build() == Schema.BOOLEAN_SCHEMA
        assert SchemaBuilder.bytes().build() == Schema.BYTES_SCHEMA
        assert SchemaBuilder.of_type(Type.INT16).build() == Schema.INT16_SCHEMA

    def test_copy_of_keeps_everything(self):
        schema = person_schema()
        assert SchemaBuilder.copy_of(schema).build() == schema
        bare = SchemaBuilder.copy_of(schema, with_fields=False).field("x", Schema.STRING_SCHEMA).build()
        assert [f.name for f in bare.fields] == ["x"] and bare.name == schema.name


class TestAccessorsOnWrongType:
    def test_fields_on_non_struct(self):
        with pytest.raises(DataError, match="Cannot list fields on non-struct type"):
            _ = Schema.STRING_SCHEMA.fields
        with pytest.raises(DataError, match="Cannot look up fields on non-struct type"):
            Schema.STRING_SCHEMA.field("a")

    def test_key_and_value_schema(self):
        with pytest.raises(DataError, match="Cannot look up key schema on non-map type"):
            _ = SchemaBuilder.array(Schema.STRING_SCHEMA).build().key_schema
        with pytest.raises(DataError, match="Cannot look up value schema on non-array and non-map type"):
            _ = Schema.INT8_SCHEMA.value_schema


class TestEqualityAndHashing:
    def test_equal_schemas_hash_equal_and_work_as_cache_keys(self):
        cache = {person_schema(): "derived"}
        assert cache[person_schema()] == "derived"

    @pytest.mark.parametrize(
        "other",
        [
            SchemaBuilder.string().optional().build(),
            SchemaBuilder.string().name("n").build(),
            SchemaBuilder.string().version(1).build(),
            SchemaBuilder.string().doc("d").build(),
            SchemaBuilder.string().parameter("p", "v").build(),
            SchemaBuilder.string().default_value("x").build(),
            Schema.BYTES_SCHEMA,
        ],
    )
    def test_every_attribute_counts(self, other):
        assert other != Schema.STRING_SCHEMA

    def test_default_true_differs_from_default_one(self):
        assert SchemaBuilder.boolean().default_value(True).build() != Schema(Type.BOOLEAN, default=1)

    def test_immutable(self):
        with pytest.raises(AttributeError, match="immutable"):
            Schema.STRING_SCHEMA.optional = True
        field = person_schema().field("name")
        with pytest.raises(AttributeError, match="immutable"):
            field.name = "x"

    def test_unhashable_default_still_hashes(self):
        schema = SchemaBuilder.array(Schema.INT8_SCHEMA).default_value([1, 2]).build()
        assert hash(schema) == hash(SchemaBuilder.array(Schema.INT8_SCHEMA).default_value([1, 2]).build())

    def test_pickles(self):
        schema = SchemaBuilder.map(Schema.STRING_SCHEMA, person_schema()).build()
        assert pickle.loads(pickle.dumps(schema)) == schema
        assert pickle.loads(pickle.dumps(Decimal.schema(2))) == Decimal.schema(2)

    def test_field_equality(self):
        assert Field("a", 0, Schema.STRING_SCHEMA) == Field("a", 0, Schema.STRING_SCHEMA)
        assert Field("a", 0, Schema.STRING_SCHEMA) != Field("a", 1, Schema.STRING_SCHEMA)

    def test_repr(self):
        assert repr(person_schema()) == "Schema{com.example.Person:STRUCT}"
        assert repr(Schema.INT8_SCHEMA) == "Schema{INT8}"
