"""AvroConverter in Confluent's wire format, and the schema registry client.

Run against the registry stand-in (see registry_stand_in.py: no real
registry can run here), and cross-checked with Confluent's own Python
serializer and deserializer (confluent-kafka) talking to the same server.
"""

import json

import pytest

import converters
from converters.schema_registry import SchemaRegistryClient, SchemaRegistryError, subject_name
from smt.converter import ConverterError, RetriableConverterError
from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import RetriableError

ORDER_AVRO = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}],
}
ORDER_TEXT = json.dumps(ORDER_AVRO, separators=(",", ":"))
ORDER = (
    SchemaBuilder.struct()
    .name("shop.Order")
    .field("id", Schema.INT64_SCHEMA)
    .field("item", Schema.STRING_SCHEMA)
    .build()
)


def registry_converter(registry, is_key=False, **configs):
    configs = {k.replace("__", "."): v for k, v in configs.items()}
    return converters.load("avro", {"schema.registry.url": registry.url, **configs}, is_key=is_key)


def an_order(id=7, item="pen"):
    return Struct(ORDER).put("id", id).put("item", item)


class TestWireFormat:
    def test_write_registers_under_topic_value_and_frames_the_bytes(self, registry):
        data = registry_converter(registry).from_connect_data("orders", ORDER, an_order())
        assert data == b"\x00" + (1).to_bytes(4, "big") + b"\x0e\x06pen"
        assert list(registry.subjects) == ["orders-value"]
        assert json.loads(registry.schemas[1]) == {
            "type": "record",
            "name": "shop.Order",
            "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}],
        }

    def test_nested_struct_logical_types_and_int_keyed_map(self, registry):
        import datetime as dt
        import decimal

        from smt.data import Date, Decimal

        line = SchemaBuilder.struct().name("shop.Line").field("sku", Schema.STRING_SCHEMA).build()
        schema = (
            SchemaBuilder.struct()
            .name("shop.Invoice")
            .field("line", line)
            .field("due", Date.SCHEMA)
            .field("total", Decimal.schema(2))
            .field("by_id", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA))
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .build()
        )
        value = Struct(schema).put_all(
            {
                "line": Struct(line).put("sku", "A1"),
                "due": dt.date(1970, 1, 2),
                "total": decimal.Decimal("-1.28"),
                "by_id": {1: "x", -1: "y"},
            }
        )
        data = registry_converter(registry).from_connect_data("invoices", schema, value)
        # key 1 -> zigzag 2, key -1 -> zigzag 1; decimal -128 -> b"\x80"; date 1 -> zigzag 2
        assert data == (
            b"\x00\x00\x00\x00\x01"
            + b"\x04A1"
            + b"\x02"
            + b"\x02\x80"
            + b"\x04"
            + b"\x02\x02x"
            + b"\x01\x02y"
            + b"\x00"
            + b"\x00"
        )
        read_schema, read_value = registry_converter(registry).to_connect_data("invoices", data)
        assert read_value.to_dict() == value.to_dict()
        assert read_schema.field("by_id").schema == SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build()

    def test_key_converter_uses_topic_key_subject(self, registry):
        registry_converter(registry, is_key=True).from_connect_data("orders", ORDER, an_order())
        assert list(registry.subjects) == ["orders-key"]

    def test_read_looks_the_schema_up_by_id(self, registry):
        schema_id = registry.register("orders-value", ORDER_TEXT)
        data = b"\x00" + schema_id.to_bytes(4, "big") + b"\x0e\x06pen"
        schema, value = registry_converter(registry).to_connect_data("orders", data)
        assert schema == ORDER and value == an_order()

    def test_round_trip_and_caching(self, registry):
        converter = registry_converter(registry)
        encoded = converter.from_connect_batch(["orders"] * 50, [ORDER] * 50, [an_order(i) for i in range(50)])
        reader = registry_converter(registry)
        _, values = reader.to_connect_batch(["orders"] * 50, encoded)
        assert [v.get("id") for v in values] == list(range(50))
        assert registry.requests[("POST", "/subjects/orders-value/versions")] == 1
        assert registry.requests[("GET", "/schemas/ids/1")] == 1

    def test_configured_schema_is_the_reader_schema(self, registry):
        # Written with the old schema; read into a newer one that added a defaulted field.
        registry.register("orders-value", ORDER_TEXT)
        newer = dict(ORDER_AVRO, fields=ORDER_AVRO["fields"] + [{"name": "qty", "type": "int", "default": 1}])
        reader = registry_converter(registry, avro__schema=json.dumps(newer))
        schema, value = reader.to_connect_data("orders", b"\x00\x00\x00\x00\x01\x0e\x06pen")
        assert value.get("qty") == 1 and [f.name for f in schema.fields] == ["id", "item", "qty"]

    def test_no_auto_register_looks_the_schema_up(self, registry):
        writer = registry_converter(registry, auto__register__schemas="false")
        with pytest.raises(ConverterError, match=r"cannot get a schema id under subject 'orders-value'.*40401"):
            writer.from_connect_data("orders", ORDER, an_order())
        registry_converter(registry).from_connect_data("orders", ORDER, an_order())
        assert writer.from_connect_data("orders", ORDER, an_order())[:5] == b"\x00\x00\x00\x00\x01"

    def test_use_latest_version(self, registry):
        schema_id = registry.register("orders-value", ORDER_TEXT)
        writer = registry_converter(registry, auto__register__schemas="false", use__latest__version="true")
        data = writer.from_connect_data("orders", None, {"id": 7, "item": "pen"})
        assert data == b"\x00" + schema_id.to_bytes(4, "big") + b"\x0e\x06pen"


READ_ERRORS = [
    (b"\x01\x00\x00\x00\x01\x0e", r"Unknown magic byte! Expected 0x00, found 0x01"),
    (b"\x00\x00\x01", r"message of 3 bytes is too short for the Confluent wire format"),
    (b"\x00\x00\x00\x00\x63\x0e\x06pen", r"schema id 99 is unknown to the schema registry: .*error code 40403"),
    (b"\x00\x00\x00\x00\x01\x0e\x06p", r"Avro bytes do not match schema 'shop.Order' \(schema id 1\): EOFError"),
]


@pytest.mark.parametrize("data, message", READ_ERRORS)
def test_read_errors(registry, data, message):
    registry.register("orders-value", ORDER_TEXT)
    with pytest.raises(ConverterError, match=r"AvroConverter \(VALUE_CONVERTER\) failed on topic 'orders': " + message):
        registry_converter(registry).to_connect_data("orders", data)


def test_registry_down_is_retriable(registry):
    registry.fail_with = 500
    with pytest.raises(RetriableConverterError, match=r"cannot fetch schema id 1: schema registry answered 500"):
        registry_converter(registry).to_connect_data("orders", b"\x00\x00\x00\x00\x01\x0e\x06pen")
    registry.stop()
    with pytest.raises(RetriableError, match=r"schema registry unreachable at http://127\.0\.0\.1"):
        registry_converter(registry).from_connect_data("orders", ORDER, an_order())


def test_write_without_any_schema_is_refused(registry):
    with pytest.raises(ConverterError, match="cannot write a value without a schema"):
        registry_converter(registry).from_connect_data("orders", None, {"id": 1})


class TestClient:
    def test_register_lookup_latest_and_by_id(self, registry):
        client = SchemaRegistryClient(registry.url)
        schema_id = client.register("s-value", ORDER_TEXT)
        assert client.register("s-value", ORDER_TEXT) == schema_id
        assert registry.requests[("POST", "/subjects/s-value/versions")] == 1
        assert client.lookup("s-value", ORDER_TEXT).id == schema_id
        latest = client.latest("s-value")
        assert (latest.id, latest.version, latest.schema) == (schema_id, 1, ORDER_TEXT)
        fresh = SchemaRegistryClient(registry.url)
        assert fresh.schema_by_id(schema_id) == ORDER_TEXT
        assert fresh.schema_by_id(schema_id) == ORDER_TEXT
        assert registry.requests[("GET", f"/schemas/ids/{schema_id}")] == 1

    def test_errors_carry_status_and_code(self, registry):
        client = SchemaRegistryClient(registry.url)
        with pytest.raises(SchemaRegistryError) as info:
            client.schema_by_id(42)
        assert (info.value.status, info.value.error_code, info.value.retriable) == (404, 40403, False)

    def test_subject_names_follow_topic_name_strategy(self):
        assert subject_name("orders", is_key=False) == "orders-value"
        assert subject_name("orders", is_key=True) == "orders-key"

    def test_pickled_client_starts_with_empty_caches(self, registry):
        import pickle

        client = SchemaRegistryClient(registry.url)
        client.register("s-value", ORDER_TEXT)
        clone = pickle.loads(pickle.dumps(client))
        assert clone.urls == client.urls and clone._ids == {}

    def test_converter_pickles_for_spark_executors(self, registry):
        import pickle

        converter = registry_converter(registry)
        converter.from_connect_data("orders", ORDER, an_order())
        clone = pickle.loads(pickle.dumps(converter))
        assert clone.to_connect_data("orders", b"\x00\x00\x00\x00\x01\x0e\x06pen")[1] == an_order()


class TestInteropWithConfluentClient:
    """Bytes from Confluent's Python serializer are read by ours, and the reverse."""

    @pytest.fixture
    def confluent(self, registry):
        # Test dependency: confluent-kafka[schemaregistry,avro] (tests/converters/requirements.txt).
        from confluent_kafka import serialization
        from confluent_kafka.schema_registry import SchemaRegistryClient as ConfluentClient
        from confluent_kafka.schema_registry import avro

        client = ConfluentClient({"url": registry.url})
        context = serialization.SerializationContext("orders", serialization.MessageField.VALUE)
        return avro, client, context

    def test_confluent_bytes_read_by_our_converter(self, registry, confluent):
        avro, client, context = confluent
        serializer = avro.AvroSerializer(client, json.dumps(ORDER_AVRO))
        data = serializer({"id": 7, "item": "pen"}, context)
        assert data[0] == 0 and "orders-value" in registry.subjects
        schema, value = registry_converter(registry).to_connect_data("orders", data)
        assert value == an_order() and schema == ORDER

    def test_our_bytes_read_by_confluent(self, registry, confluent):
        avro, client, context = confluent
        data = registry_converter(registry).from_connect_data("orders", ORDER, an_order())
        assert avro.AvroDeserializer(client)(data, context) == {"id": 7, "item": "pen"}


class TestCredentialsInTheUrl:
    """As Confluent's client (``basic.auth.credentials.source=URL``): the URL's user:password logs in."""

    def url_with(self, registry, userinfo):
        return registry.url.replace("http://", f"http://{userinfo}@")

    def test_they_log_in_and_are_never_named(self, registry):
        registry.credentials = "admin:pa ss@word"
        registry.register("orders-value", ORDER_TEXT)
        url = self.url_with(registry, "admin:pa%20ss%40word")
        converter = converters.load("avro", {"schema.registry.url": url})
        assert converter.to_connect_data("orders", b"\x00\x00\x00\x00\x01\x0e\x06pen")[1] == an_order()
        assert converter.registry.urls == [registry.url]
        with pytest.raises(ConverterError, match=r"schema id 99 is unknown") as failure:
            converter.to_connect_data("orders", b"\x00\x00\x00\x00\x63\x0e\x06pen")
        assert "admin" not in str(failure.value) and "ss%40word" not in str(failure.value)
        assert registry.url + "/schemas/ids/99" in str(failure.value)

    def test_basic_auth_user_info_comes_first(self, registry):
        registry.credentials = "right:one"
        registry.register("orders-value", ORDER_TEXT)
        url = self.url_with(registry, "wrong:one")
        converter = converters.load("avro", {"schema.registry.url": url, "basic.auth.user.info": "right:one"})
        assert converter.to_connect_data("orders", b"\x00\x00\x00\x00\x01\x0e\x06pen")[1] == an_order()

    def test_without_them_the_registry_refuses(self, registry):
        registry.credentials = "admin:secret"
        with pytest.raises(ConverterError, match=r"schema registry answered 401 to GET http://127\.0\.0\.1:\d+/"):
            converters.load("avro", {"schema.registry.url": registry.url}).to_connect_data(
                "orders", b"\x00\x00\x00\x00\x01\x0e\x06pen"
            )


class TestCredentialSources:
    """Confluent's ``basic.auth.credentials.source`` (#34 item 1): each source logs in with its own credentials."""

    WIRE = b"\x00\x00\x00\x00\x01\x0e\x06pen"

    @pytest.fixture
    def locked(self, registry):
        registry.credentials = "admin:s3cret-Pa55"
        registry.register("orders-value", ORDER_TEXT)
        return registry

    def url_with(self, registry, userinfo):
        return registry.url.replace("http://", f"http://{userinfo}@")

    @pytest.mark.parametrize(
        "configs",
        [
            {"basic.auth.credentials.source": "USER_INFO", "basic.auth.user.info": "admin:s3cret-Pa55"},
            {"basic.auth.credentials.source": "user_info", "basic.auth.user.info": "admin:s3cret-Pa55"},
            {
                "schema.registry.basic.auth.credentials.source": "USER_INFO",
                "schema.registry.basic.auth.user.info": "admin:s3cret-Pa55",
            },
            {
                "basic.auth.credentials.source": "SASL_INHERIT",
                "sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required "
                'username="admin" password="s3cret-Pa55";',
            },
        ],
        ids=["user-info", "lower-case", "schema-registry-forms", "sasl-inherit"],
    )
    def test_each_source_logs_in(self, locked, configs):
        converter = converters.load("avro", {"schema.registry.url": locked.url, **configs})
        assert converter.to_connect_data("orders", self.WIRE)[1] == an_order()

    def test_url_source_uses_the_url_and_user_info_ignores_it(self, locked):
        url = self.url_with(locked, "admin:s3cret-Pa55")
        by_url = converters.load("avro", {"schema.registry.url": url, "basic.auth.credentials.source": "URL",
                                          "basic.auth.user.info": "wrong:one"})  # fmt: skip
        assert by_url.to_connect_data("orders", self.WIRE)[1] == an_order()
        by_info = converters.load("avro", {"schema.registry.url": url, "basic.auth.credentials.source": "USER_INFO",
                                           "basic.auth.user.info": "wrong:one"})  # fmt: skip
        with pytest.raises(ConverterError, match=r"schema registry answered 401"):
            by_info.to_connect_data("orders", self.WIRE)

    def test_the_short_form_wins_over_the_schema_registry_form(self, locked):
        converter = converters.load("avro", {
            "schema.registry.url": locked.url, "basic.auth.credentials.source": "USER_INFO",
            "basic.auth.user.info": "admin:s3cret-Pa55", "schema.registry.basic.auth.user.info": "wrong:one",
        })  # fmt: skip
        assert converter.to_connect_data("orders", self.WIRE)[1] == an_order()

    @pytest.mark.parametrize(
        "configs, message",
        [
            ({"basic.auth.credentials.source": "USER_INFO"},
             r"^basic\.auth\.credentials\.source: is USER_INFO, so basic\.auth\.user\.info \(user:password\) "
             r"is required$"),
            ({"basic.auth.credentials.source": "USER_INFO", "basic.auth.user.info": "s3cret-Pa55"},
             r"^basic\.auth\.user\.info: must be user:password \(the value is not shown\)$"),
            ({"basic.auth.credentials.source": "URL"},
             r"^basic\.auth\.credentials\.source: is URL, but schema\.registry\.url has no user:password@"),
            ({"basic.auth.credentials.source": "SASL_INHERIT"},
             r"^basic\.auth\.credentials\.source: is SASL_INHERIT, so sasl\.jaas\.config is required: a converter "
             r"sees only its own keys"),
            ({"basic.auth.credentials.source": "SASL_INHERIT",
              "sasl.jaas.config": 'com.sun.security.auth.module.Krb5LoginModule required password="s3cret-Pa55";'},
             r"^sasl\.jaas\.config: only a PLAIN or SCRAM login module gives a user and password to inherit$"),
            ({"basic.auth.credentials.source": "TOKEN"},
             r"^basic\.auth\.credentials\.source: must be one of USER_INFO, URL, SASL_INHERIT; got 'TOKEN'"),
        ],
        ids=["user-info-missing", "user-info-malformed", "url-without", "sasl-without", "sasl-kerberos", "unknown"],
    )  # fmt: skip
    def test_a_source_with_nothing_to_give_is_refused_without_the_secret(self, locked, configs, message):
        from smt.errors import ConfigError

        with pytest.raises(ConfigError, match=message) as refused:
            converters.load("avro", {"schema.registry.url": locked.url, **configs})
        assert "s3cret-Pa55" not in str(refused.value)


def test_a_refused_login_names_no_credential(registry):
    registry.credentials = "admin:s3cret-Pa55"
    registry.register("orders-value", ORDER_TEXT)
    converter = converters.load("avro", {"schema.registry.url": registry.url,
                                         "basic.auth.credentials.source": "USER_INFO",
                                         "basic.auth.user.info": "admin:wr0ng-Pa55"})  # fmt: skip
    with pytest.raises(ConverterError, match=r"schema registry answered 401") as refused:
        converter.to_connect_data("orders", b"\x00\x00\x00\x00\x01\x0e\x06pen")
    assert "wr0ng-Pa55" not in str(refused.value) and "admin:" not in str(refused.value)
