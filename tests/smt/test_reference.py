"""The generated reference, from a registry holding plugins defined here, and docs/reference.md."""

from __future__ import annotations

import pathlib
import re

import pytest

from smt.cli import main
from smt.config import ConfigDef, ConfigType, Importance, non_empty_list
from smt.config_review import review_pipeline_keys
from smt.pipeline.spec import PIPELINE_CONFIG
from smt.plugins import BUILTIN_PLUGIN_MODULES, hookimpl, load_plugins
from smt.reference import reference_markdown
from smt.transform import Predicate, Transform

PUBLISHED = pathlib.Path(__file__).parents[2] / "docs" / "reference.md"


class UpperCaseFields(Transform):
    """Upper-cases the named fields of the value.

    This second paragraph is detail, left out of the overview.
    """

    name = "upper-case-fields"
    aliases = ("com.example.UpperCaseFields", "UpperCase")
    config_def = (
        ConfigDef()
        .define(
            "fields", ConfigType.LIST, validator=non_empty_list, importance=Importance.HIGH, doc="Fields to upper-case."
        )
        .define("locale", ConfigType.STRING, "en", doc="Locale | rules.")
    )


class AlwaysTrue(Predicate):
    """Matches every record."""

    name = "always-true"


class _Padded(Transform):
    """Pads the named field
       on the left.

    config_def is the same for both sides, so the reference shows them once.
    """

    config_def = ConfigDef().define("field", ConfigType.STRING, doc="The field to pad.")


class PaddedKey(_Padded):
    __doc__ = _Padded.__doc__
    name = "Padded$Key"
    aliases = ("com.example.Padded$Key",)


class PaddedValue(_Padded):
    __doc__ = _Padded.__doc__
    name = "Padded$Value"
    aliases = ("com.example.Padded$Value",)


class TrimmedKey(Transform):
    """Trims the key."""

    name = "Trimmed$Key"


class TrimmedValue(Transform):
    """Trims the value; documented apart from Trimmed$Key, so it keeps its own section."""

    name = "Trimmed$Value"


class ReferenceTestPlugin:
    """A pluggy plugin object, as a third-party package would register it."""

    @hookimpl
    def smt_transforms(self):
        return [UpperCaseFields, PaddedKey, PaddedValue, TrimmedKey, TrimmedValue]

    @hookimpl
    def smt_predicates(self):
        return [AlwaysTrue]


def _registry(**kwargs):
    return load_plugins(entry_points=False, extra_plugins=[ReferenceTestPlugin()], **kwargs)


def _reference() -> str:
    return reference_markdown(_registry())


def _section(markdown: str, heading: str) -> str:
    """The text from ``heading`` up to the next heading of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    start = markdown.index(heading + "\n")
    ends = [markdown.find(f"\n{'#' * n} ", start + 1) for n in range(1, len(level) + 1)]
    ends = [end for end in ends if end != -1]
    return markdown[start : min(ends) if ends else len(markdown)]


def test_transform_section_is_generated_from_the_class():
    plugins = _registry()
    origin = plugins.lookup("transform", "upper-case-fields").origin
    section = _section(reference_markdown(plugins), "### `upper-case-fields`")
    assert section.splitlines() == [
        "### `upper-case-fields`",
        "",
        "Upper-cases the named fields of the value.",
        "",
        "- Aliases: `com.example.UpperCaseFields`, `UpperCase`",
        f"- Class: `{__name__}.UpperCaseFields`",
        f"- Provided by: `{origin}`",
        "",
        "| key | type | default | importance | description |",
        "|---|---|---|---|---|",
        "| `transforms.<alias>.fields` | list | (required) | high | Fields to upper-case. |",
        "| `transforms.<alias>.locale` | string | `en` | medium | Locale \\| rules. |",
    ]


def test_plugin_without_keys_says_so():
    section = _section(_reference(), "### `always-true`")
    assert "Matches every record." in section
    assert "- Aliases" not in section
    assert section.rstrip().endswith("_No configuration keys._")


def test_every_kind_has_a_section_in_order_with_plugins_inside():
    markdown = _reference()
    headings = [line for line in markdown.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Pipeline",
        "## Transforms",
        "## Predicates",
        "## Converters",
        "## Source connectors",
        "## Sink connectors",
        "## Config providers",
    ]
    assert "### `upper-case-fields`" in _section(markdown, "## Transforms")
    assert "### `always-true`" in _section(markdown, "## Predicates")
    assert "### `string`" in _section(markdown, "## Converters")
    assert "### `file`" in _section(markdown, "## Source connectors")
    assert "### `file`" in _section(markdown, "## Sink connectors")


def test_empty_kind_is_marked():
    # Without the built-in modules only this file's transform and predicate remain.
    markdown = reference_markdown(_registry(blocklist=BUILTIN_PLUGIN_MODULES))
    converters = _section(markdown, "## Converters").splitlines()
    assert converters[:2] == ["## Converters", ""] and converters[2].startswith("Keys go under `key.converter.`")
    assert converters[3:] == ["", "_No converters registered._"]
    assert _section(markdown, "## Source connectors").rstrip().endswith("_No source connectors registered._")
    assert _section(markdown, "## Sink connectors").rstrip().endswith("_No sink connectors registered._")
    assert "_No transforms registered._" not in markdown


def test_plugins_sorted_by_name_within_a_kind():
    markdown = _section(_reference(), "## Converters")
    names = [line[5:-1] for line in markdown.splitlines() if line.startswith("### ")]
    assert names == sorted(names) and len(names) >= 2


def test_default_registry_is_used_when_none_given():
    markdown = reference_markdown()
    assert markdown.startswith("# Configuration reference\n")
    assert "### `string`" in markdown
    assert "upper-case-fields" not in markdown


def test_key_and_value_documented_alike_share_one_section():
    plugins = _registry()
    origin = plugins.lookup("transform", "Padded$Key").origin
    section = _section(reference_markdown(plugins), "### `Padded$Key`, `Padded$Value`")
    assert section.splitlines() == [
        "### `Padded$Key`, `Padded$Value`",
        "",
        "Pads the named field on the left.",  # the docstring's line break and indentation folded
        "",
        "- Aliases: `com.example.Padded$Key`, `com.example.Padded$Value`",
        f"- Classes: `{__name__}.PaddedKey`, `{__name__}.PaddedValue`",
        f"- Provided by: `{origin}`",
        "",
        "| key | type | default | importance | description |",
        "|---|---|---|---|---|",
        "| `transforms.<alias>.field` | string | (required) | medium | The field to pad. |",
    ]


def test_key_and_value_documented_apart_keep_their_own_sections():
    markdown = _reference()
    assert "### `Trimmed$Key`\n" in markdown and "### `Trimmed$Value`\n" in markdown
    assert "`Trimmed$Key`, `Trimmed$Value`" not in markdown


def test_builtin_key_value_pairs_are_shown_once():
    markdown = reference_markdown(load_plugins(entry_points=False))
    assert "### `Cast$Key`, `Cast$Value`\n" in markdown
    assert "### `Cast$Value`" not in markdown and "### `Cast$Key`\n" not in markdown


def test_pipeline_section_documents_every_top_level_key():
    pipeline = _section(_reference(), "## Pipeline")
    documented = set(re.findall(r"^\| `([^`]+)` \|", pipeline, re.MULTILINE))
    declared = {key.name for key in PIPELINE_CONFIG.keys} | {f"{p.prefix}*" for p in PIPELINE_CONFIG.prefixes}
    assert declared <= documented
    assert {
        "source",
        "sink",
        "mode",
        "checkpoint.location",
        "spark.*",
        "streaming.trigger",
        "errors.tolerance",
        "errors.retry.timeout",
        "errors.deadletterqueue.kafka.*",
    } <= documented
    assert {
        "transforms",
        "transforms.<alias>.type",
        "transforms.<alias>.predicate",
        "transforms.<alias>.negate",
        "predicates",
        "predicates.<alias>.type",
    } <= documented


#: Each kind: a built-in plugin with keys, and the keys that put it in a pipeline file.
_IN_A_PIPELINE = {
    "## Transforms": ("TimestampRouter", {"transforms": "t", "transforms.t.type": "TimestampRouter"}),
    "## Predicates": ("TopicNameMatches", {"predicates": "t", "predicates.t.type": "TopicNameMatches"}),
    "## Converters": ("json", {"value.converter": "json"}),
    "## Source connectors": ("generator", {"source": "generator"}),
    "## Sink connectors": ("console", {"sink": "console"}),
}


@pytest.mark.parametrize("kind", sorted(_IN_A_PIPELINE))
def test_plugin_keys_are_shown_as_a_pipeline_file_spells_them(kind):
    name, placed = _IN_A_PIPELINE[kind]
    plugins = load_plugins(entry_points=False)
    section = _section(_section(reference_markdown(plugins), kind), f"### `{name}`")
    shown = re.findall(r"^\| `([^`*]+)` \|", section, re.MULTILINE)
    assert shown
    spelled = {key.replace("<alias>", "t").replace("<side>", "value"): "1" for key in shown}
    # The review reports every key nobody reads: none of the shown ones, but a misspelled one.
    notices = review_pipeline_keys(PIPELINE_CONFIG, {**placed, **spelled, shown[0] + "x": "1"}, plugins)
    assert [notice.key for notice in notices] == [shown[0] + "x"]


def test_published_reference_is_up_to_date():
    generated = reference_markdown(load_plugins(entry_points=False), published=True)
    assert PUBLISHED.read_text(encoding="utf-8") == generated, (
        "docs/reference.md is stale: regenerate it with `smt plugins --docs --builtin-only > docs/reference.md`"
    )


def test_builtin_only_docs_print_the_published_reference(capsys):
    assert main(["plugins", "--docs", "--builtin-only"]) == 0
    assert capsys.readouterr().out == PUBLISHED.read_text(encoding="utf-8")


def test_docs_for_users_have_no_contributor_note_and_may_show_one_plugin(capsys):
    assert main(["plugins", "--docs"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Configuration reference") and "Do not edit" not in out

    assert main(["plugins", "--docs", "MaskField"]) == 0
    one = capsys.readouterr().out
    assert one.startswith("## Transforms\n") and "### `MaskField$Key`, `MaskField$Value`" in one
    assert "transforms.<alias>.fields" in one and "### `InsertField" not in one and "## Pipeline" not in one

    assert main(["plugins", "--docs", "MaskFeild"]) == 1
    assert (
        capsys.readouterr().err.splitlines()[0]
        == "error: no plugin is called 'MaskFeild'; did you mean 'MaskField$Key', 'MaskField$Value'?"
    )


class Uppercase(Transform):
    """Upper-cases the value; declares a compiled form (smt.compiled.CompiledStage)."""

    name = "Uppercase$Value"

    @classmethod
    def compiled_form(cls):
        return "string values"


class UppercaseKey(Uppercase):
    """Declares that it has none: a $Key variant whose $Value has one."""

    name = "Uppercase$Key"

    @classmethod
    def compiled_form(cls):
        return None


class CompiledFormPlugin:
    @hookimpl
    def smt_transforms(self):
        return [Uppercase, UppercaseKey]


def _compile_row(markdown: str) -> str:
    (row,) = [line for line in markdown.splitlines() if line.startswith("| `pipeline.compile` |")]
    return row


def test_pipeline_compile_lists_the_stages_plugins_declare_compiled():
    builtin = _compile_row(reference_markdown(load_plugins(entry_points=False)))
    assert "transforms: DropHeaders (whole records, in streaming runs of bytes), ExtractNewRecordState (" in builtin
    assert "ExtractNewRecordState (creates, reads and updates, deletes in the rewrite modes, and tombstones" in builtin
    assert "key converter (bytearray, or one with a compiled form)" in builtin
    assert "source: file (format avro, parquet, text; jsonl in a write not split" in builtin
    assert "predicates: HasHeaderKey (whole records, in streaming runs of bytes), RecordIsTombstone (" in builtin
    assert "MaskField$Value (top-level primitive fields, no replacement), ReplaceField$Value" in builtin
    assert "value converter: json (" in builtin and "sink: kafka (" in builtin and "source: file (" in builtin
    assert "), table (write.mode append" in builtin
    assert "MaskField$Key" not in builtin
    declared = _compile_row(reference_markdown(load_plugins(entry_points=False, extra_plugins=[CompiledFormPlugin()])))
    assert "Uppercase$Value (string values)" in declared and "Uppercase$Key" not in declared
    assert declared.replace(", Uppercase$Value (string values)", "") == builtin


def test_pipeline_compile_says_when_no_plugin_declares_one():
    from smt.pipeline.compiled_plan import compile_config

    class NoPlugins:
        def registrations(self, kind):
            return []

    (key,) = compile_config(NoPlugins()).keys
    assert "(no installed plugin declares one)" in key.doc
