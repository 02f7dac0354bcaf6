"""Struct: validated puts, defaults, validate() and equality, with Kafka's messages."""

import datetime
import decimal
import pickle

import pytest

from smt.data import Date, Decimal, Schema, SchemaBuilder, Struct
from smt.errors import DataError

ADDRESS = SchemaBuilder.struct().name("Address").field("city", Schema.STRING_SCHEMA).build()
PERSON = (
    SchemaBuilder.struct()
    .name("Person")
    .field("name", Schema.STRING_SCHEMA)
    .field("age", SchemaBuilder.int8().optional())
    .field("country", SchemaBuilder.string().default_value("NL"))
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional())
    .field("scores", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.FLOAT64_SCHEMA).optional())
    .field("address", SchemaBuilder.struct().name("Address").field("city", Schema.STRING_SCHEMA).optional())
    .field("born", SchemaBuilder.int32().name(Date.LOGICAL_NAME).version(1).optional())
    .field("balance", Decimal.builder(2).optional())
    .build()
)


def make_person(**values):
    struct = Struct(PERSON).put("name", "Ada")
    for name, value in values.items():
        struct.put(name, value)
    return struct


def test_get_put_and_defaults():
    person = make_person(age=36)
    assert person.get("name") == "Ada"
    assert person.get("age") == 36
    assert person.get("country") == "NL"
    assert person.get_without_default("country") is None
    assert person.get_int8("age") == 36


def test_nested_struct_and_logical_values():
    address = Struct(PERSON.field("address").schema).put("city", "Delft")
    person = make_person(address=address, born=datetime.date(1815, 12, 10), balance=decimal.Decimal("1.50"))
    assert person.get_struct("address").get("city") == "Delft"
    assert person.to_dict()["address"] == {"city": "Delft"}


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("name", 5, 'Invalid Python object for schema with type STRING: int for field: "name"'),
        ("age", 200, 'Invalid value 200 for schema with type INT8: out of range for field: "age"'),
        ("age", True, 'Invalid Python object for schema with type INT8: bool for field: "age"'),
        ("tags", ["a", 1], 'Invalid Python object for schema with type STRING: int for element of array field: "tags"'),
        (
            "scores",
            {"a": "x"},
            'Invalid Python object for schema with type FLOAT64: str for value of map field: "scores"',
        ),
        ("scores", {1: 1.0}, 'Invalid Python object for schema with type STRING: int for key of map field: "scores"'),
        ("name", None, 'Invalid value: null used for required field: "name", schema type: STRING'),
        (
            "born",
            5,
            'Invalid Python object for schema "org.apache.kafka.connect.data.Date" with type INT32: int for field: "born"',
        ),
        ("address", Struct(ADDRESS).put("city", "x"), "Struct schemas do not match."),
    ],
)
def test_put_rejects_bad_values(field, value, message):
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_person().put(field, value)


def test_unknown_field():
    with pytest.raises(DataError, match="nope is not a valid field name"):
        make_person().get("nope")


def test_validate_requires_required_fields():
    with pytest.raises(DataError, match='null used for required field: "name"'):
        Struct(PERSON).validate()
    make_person().validate()  # optional and defaulted fields may stay empty


def test_typed_getter_checks_type():
    with pytest.raises(DataError, match="Field 'name' is not of type INT32"):
        make_person().get_int32("name")


def test_not_a_struct_schema():
    with pytest.raises(DataError, match="Not a struct schema"):
        Struct(Schema.STRING_SCHEMA)


def test_equality_repr_and_pickle():
    assert make_person(age=3) == make_person(age=3)
    assert make_person(age=3) != make_person(age=4)
    assert repr(Struct(ADDRESS).put("city", "Delft")) == "Struct{city='Delft'}"
    person = make_person(tags=["a"])
    assert pickle.loads(pickle.dumps(person)) == person
