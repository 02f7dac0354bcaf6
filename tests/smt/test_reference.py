"""The generated plugin reference, from a registry holding a plugin defined here."""

from __future__ import annotations

from smt.config import ConfigDef, ConfigType, Importance, non_empty_list
from smt.plugins import BUILTIN_PLUGIN_MODULES, hookimpl, load_plugins
from smt.reference import plugin_reference_markdown
from smt.transform import Predicate, Transform


class UpperCaseFields(Transform):
    """Upper-cases the named fields of the value.

    This second paragraph is detail, left out of the overview.
    """

    name = "upper-case-fields"
    aliases = ("com.example.UpperCaseFields", "UpperCase")
    config_def = (
        ConfigDef()
        .define("fields", ConfigType.LIST, validator=non_empty_list, importance=Importance.HIGH,
                doc="Fields to upper-case.")
        .define("locale", ConfigType.STRING, "en", doc="Locale | rules.")
    )


class AlwaysTrue(Predicate):
    """Matches every record."""

    name = "always-true"


class ReferenceTestPlugin:
    """A pluggy plugin object, as a third-party package would register it."""

    @hookimpl
    def smt_transforms(self):
        return [UpperCaseFields]

    @hookimpl
    def smt_predicates(self):
        return [AlwaysTrue]


def _registry(**kwargs):
    return load_plugins(entry_points=False, extra_plugins=[ReferenceTestPlugin()], **kwargs)


def _reference() -> str:
    return plugin_reference_markdown(_registry())


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
    section = _section(plugin_reference_markdown(plugins), "### `upper-case-fields`")
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
        "| `fields` | list | (required) | high | Fields to upper-case. |",
        "| `locale` | string | `en` | medium | Locale \\| rules. |",
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
        "## Transforms", "## Predicates", "## Converters", "## Source connectors", "## Sink connectors",
        "## Config providers",
    ]
    assert "### `upper-case-fields`" in _section(markdown, "## Transforms")
    assert "### `always-true`" in _section(markdown, "## Predicates")
    assert "### `string`" in _section(markdown, "## Converters")
    assert "### `file`" in _section(markdown, "## Source connectors")
    assert "### `file`" in _section(markdown, "## Sink connectors")


def test_empty_kind_is_marked():
    # Without the built-in modules only this file's transform and predicate remain.
    markdown = plugin_reference_markdown(_registry(blocklist=BUILTIN_PLUGIN_MODULES))
    converters = _section(markdown, "## Converters")
    assert converters.splitlines() == ["## Converters", "", "_No converters registered._"]
    assert _section(markdown, "## Source connectors").rstrip().endswith("_No source connectors registered._")
    assert _section(markdown, "## Sink connectors").rstrip().endswith("_No sink connectors registered._")
    assert "_No transforms registered._" not in markdown


def test_plugins_sorted_by_name_within_a_kind():
    markdown = _section(_reference(), "## Converters")
    names = [line[5:-1] for line in markdown.splitlines() if line.startswith("### ")]
    assert names == sorted(names) and len(names) >= 2


def test_default_registry_is_used_when_none_given():
    markdown = plugin_reference_markdown()
    assert markdown.startswith("# Plugin reference\n")
    assert "### `string`" in markdown
    assert "upper-case-fields" not in markdown
