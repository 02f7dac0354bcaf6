"""Unknown and deprecated keys: every key of a file is read by a plugin, or reported."""

from __future__ import annotations

import pytest

from smt.config import ConfigDef, ConfigType
from smt.config_review import review_chain_keys, review_pipeline_keys, review_plugin_keys
from smt.errors import ConfigError
from smt.pipeline.spec import PIPELINE_CONFIG, PipelineSpec
from smt.plugins import default_plugins

BASE = {"source.path": "in.txt", "sink.path": "out"}


def notices_of(props: dict, base: dict = BASE) -> dict[str, str]:
    return {n.key: n.message for n in review_pipeline_keys(PIPELINE_CONFIG, {**base, **props}, default_plugins())}


def test_a_file_using_only_declared_keys_has_no_notices():
    assert (
        notices_of(
            {
                "name": "p",
                "value.converter": "json",
                "value.converter.schemas.enable": "false",
                "transforms": "mask",
                "transforms.mask.type": "MaskField$Value",
                "transforms.mask.fields": "card",
                "transforms.mask.predicate": "p",
                "predicates": "p",
                "predicates.p.type": "TopicNameMatches",
                "predicates.p.pattern": "x",
                "errors.tolerance": "all",
                "errors.deadletterqueue.path": "dlq",
                "spark.sql.shuffle.partitions": "4",
                "streaming.trigger": "availableNow",
            }
        )
        == {}
    )


def test_misspelled_transform_key_suggests_the_declared_name():
    found = notices_of(
        {
            "transforms": "mask",
            "transforms.mask.type": "MaskField$Value",
            "transforms.mask.fields": "card",
            "transforms.mask.feilds": "card",
        }
    )
    assert found == {
        "transforms.mask.feilds": "unknown key: no plugin reads it, so it has no effect; "
        "did you mean 'transforms.mask.fields'?"
    }


def test_top_level_connector_and_converter_keys_are_checked_against_their_plugin():
    found = notices_of(
        {
            "sink.fromat": "text",
            "value.converter": "json",
            "value.converter.schemas.enabled": "false",
            "errors.tolerence": "all",
        }
    )
    assert found["sink.fromat"].endswith("did you mean 'sink.format'?")
    assert found["value.converter.schemas.enabled"].endswith("did you mean 'value.converter.schemas.enable'?")
    assert found["errors.tolerence"].endswith("did you mean 'errors.tolerance'?")


def test_a_key_with_nothing_close_has_no_suggestion():
    assert notices_of({"connector.class": "x"}) == {
        "connector.class": "unknown key: no plugin reads it, so it has no effect"
    }


def test_keys_of_an_alias_not_listed_in_transforms_are_reported():
    # #11 item 7: an empty transforms= with stray transforms.x.* keys ran with no transform, silently.
    found = notices_of({"transforms": "", "transforms.x.type": "MaskField$Value", "transforms.x.fields": "a"})
    assert found == {
        "transforms.x.type": "unknown key: 'x' is not listed in 'transforms' (it lists: none), "
        "so this key has no effect",
        "transforms.x.fields": "unknown key: 'x' is not listed in 'transforms' (it lists: none), "
        "so this key has no effect",
    }


def test_a_misspelled_alias_suggests_the_listed_one():
    found = notices_of(
        {
            "transforms": "drop",
            "transforms.drop.type": "ReplaceField$Value",
            "transforms.dorp.exclude": "x",
            "predicates": "",
            "predicates.isOrder.pattern": "x",
        }
    )
    assert found["transforms.dorp.exclude"].endswith("did you mean 'transforms.drop.exclude'?")
    assert "'isOrder' is not listed in 'predicates'" in found["predicates.isOrder.pattern"]


def test_aliases_with_dots_and_shared_prefixes_find_their_own_keys():
    found = notices_of(
        {
            "transforms": "a,a.b",
            "transforms.a.type": "MaskField$Value",
            "transforms.a.fields": "x",
            "transforms.a.b.type": "HoistField$Value",
            "transforms.a.b.field": "y",
        }
    )
    assert found == {}


def test_pass_through_prefixes_are_owned():
    assert (
        notices_of(
            {
                "source": "kafka",
                "source.topics": "t",
                "source.kafka.bootstrap.servers": "h:1",
                "source.kafka.security.protocol": "SSL",
                "sink": "kafka",
                "sink.kafka.bootstrap.servers": "h:1",
                "sink.kafka.acks": "all",
                "errors.deadletterqueue.kafka.linger.ms": "5",
            },
            base={},
        )
        == {}
    )


def test_wasm_guest_config_and_its_converters_keys():
    found = notices_of(
        {
            "transforms": "w",
            "transforms.w.type": "wasm",
            "transforms.w.module.path": "m.wasm",
            "transforms.w.config.anything": "1",
            "transforms.w.value.converter": "json",
            "transforms.w.value.converter.schemas.enable": "false",
            "transforms.w.value.converter.schema.enable": "false",
            "transforms.w.key.converter.encoding": "x",
        }
    )
    assert set(found) == {"transforms.w.value.converter.schema.enable", "transforms.w.key.converter.encoding"}
    assert found["transforms.w.value.converter.schema.enable"].endswith(
        "did you mean 'transforms.w.value.converter.schemas.enable'?"
    )


def test_keys_declared_by_the_wasm_abis_are_owned():
    from host_functions.transform import WasmTransform

    abi_keys = {key.name for key in WasmTransform.config_def.keys} - {
        "module.path",
        "abi",
        "function.name",
        "timeout.ms",
        "memory.max.bytes",
        "wasi",
        "path",
        "key.converter",
        "value.converter",
        "header.converter",
    }
    props = {f"transforms.w.{name}": "x" for name in abi_keys}
    assert notices_of({"transforms": "w", "transforms.w.type": "wasm", **props}) == {}


def test_deprecated_key_names_its_replacement():
    found = notices_of({"transforms": "r", "transforms.r.type": "ReplaceField$Value", "transforms.r.blacklist": "card"})
    assert found == {
        "transforms.r.blacklist": "is deprecated (removed in Kafka 4.0, which ignores it; honoured "
        "here with its Kafka 3.x meaning); use 'transforms.r.exclude' instead"
    }


def test_deprecated_key_beside_its_replacement_is_ignored_and_says_so():
    found = notices_of(
        {
            "transforms": "r",
            "transforms.r.type": "ReplaceField$Value",
            "transforms.r.whitelist": "a",
            "transforms.r.include": "b",
        }
    )
    assert found["transforms.r.whitelist"].endswith(
        "and ignored, because 'transforms.r.include' is also set; remove it"
    )


def test_an_unknown_type_leaves_its_keys_to_the_build_error():
    assert notices_of({"transforms": "x", "transforms.x.type": "NoSuch", "transforms.x.anything": "1"}) == {}


def test_nested_plugin_prefix_without_registry_takes_keys_as_they_are():
    definition = (
        ConfigDef()
        .define("conv", ConfigType.STRING, "json")
        .define_prefix("conv.", plugin_kind="converter", plugin_key="conv")
    )
    assert review_plugin_keys(definition, {"conv.whatever": "1", "other": "2"}, "p.")[0].key == "p.other"


def test_chain_review_alone():
    notices = review_chain_keys(
        {"transforms": "a", "transforms.a.type": "Filter", "transforms.a.x": "1"}, default_plugins()
    )
    assert [str(n) for n in notices] == ["transforms.a.x: unknown key: no plugin reads it, so it has no effect"]


def test_spec_refuses_unknown_keys_carries_deprecated_ones_and_strict_refuses_those_too(tmp_path):
    (tmp_path / "in.txt").write_text("a\n")
    with pytest.raises(
        ConfigError, match=r"^transforms\.r\.feilds: unknown key: .*did you mean 'transforms\.r\.fields'"
    ):
        PipelineSpec.from_properties(
            {
                **BASE,
                "transforms": "r",
                "transforms.r.type": "MaskField$Value",
                "transforms.r.fields": "a",
                "transforms.r.feilds": "a",
            },  # fmt: skip
            base_dir=str(tmp_path),
        )
    # A stage taken out of the list is a warning.
    unlisted = PipelineSpec.from_properties(
        {**BASE, "transforms": "", "transforms.x.type": "Filter"}, base_dir=str(tmp_path)
    )
    assert [(n.key, n.kind) for n in unlisted.notices] == [("transforms.x.type", "unlisted")]
    props = {**BASE, "transforms": "r", "transforms.r.type": "ReplaceField$Value", "transforms.r.blacklist": "a"}
    spec = PipelineSpec.from_properties(props, base_dir=str(tmp_path))
    assert [n.key for n in spec.notices] == ["transforms.r.blacklist"]
    with pytest.raises(ConfigError, match=r"^transforms\.r\.blacklist: is deprecated"):
        PipelineSpec.from_properties(props, base_dir=str(tmp_path), strict=True)


def test_a_failing_build_still_carries_its_notices():
    with pytest.raises(ConfigError) as caught:
        PipelineSpec.from_properties(
            {**BASE, "errors.tolerance": "maybe", "transforms": "r", "transforms.r.type": "ReplaceField$Value",
             "transforms.r.blacklist": "a"}
        )  # fmt: skip
    assert [n.key for n in caught.value.notices] == ["transforms.r.blacklist"]


# --- converter keys no converter reads warn, as in Kafka Connect (#34 item 1) -----------------------


def test_a_converter_key_of_another_converter_names_the_converter_that_reads_it():
    found = review_pipeline_keys(PIPELINE_CONFIG, {**BASE, "key.converter": "string",
                                                   "key.converter.schemas.enable": "false"}, default_plugins())  # fmt: skip
    assert [(n.key, n.kind, n.message) for n in found] == [(
        "key.converter.schemas.enable", "ignored",
        "was supplied but isn't a known config of the string converter, so it has no effect "
        "(the json converter reads it)",
    )]  # fmt: skip


def test_a_converter_key_no_converter_reads_gets_the_nearest_name():
    found = notices_of({"value.converter": "json", "value.converter.schemas.enabled": "false",
                        "header.converter.nothing.like.it": "x"})  # fmt: skip
    assert found == {
        "value.converter.schemas.enabled": "was supplied but isn't a known config of the json converter, so it "
        "has no effect; did you mean 'value.converter.schemas.enable'?",
        "header.converter.nothing.like.it": "was supplied but isn't a known config of the simple converter, so it "
        "has no effect",
    }


def test_a_wasm_transforms_converter_keys_warn_too():
    found = review_pipeline_keys(PIPELINE_CONFIG, {
        **BASE, "transforms": "w", "transforms.w.type": "wasm", "transforms.w.module.path": "m.wasm",
        "transforms.w.function.name": "f", "transforms.w.key.converter": "string",
        "transforms.w.key.converter.schemas.enable": "false",
    }, default_plugins())  # fmt: skip
    assert [(n.key, n.kind) for n in found] == [("transforms.w.key.converter.schemas.enable", "ignored")]


def test_strict_refuses_converter_keys_no_converter_reads(tmp_path):
    (tmp_path / "in.txt").write_text("a\n")
    props = {"source.path": str(tmp_path / "in.txt"), "sink": "console", "key.converter": "string",
             "key.converter.schemas.enable": "false"}  # fmt: skip
    assert [n.key for n in PipelineSpec.from_properties(props).notices] == ["key.converter.schemas.enable"]
    with pytest.raises(ConfigError, match=r"^key\.converter\.schemas\.enable: was supplied but isn't a known config"):
        PipelineSpec.from_properties(props, strict=True)
