"""Plugin discovery through real installed entry points, the blocklist, and lookups."""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys
import textwrap
import types

import pytest

from smt.errors import ConfigError, DataError, PluginError
from smt.plugins import BUILTIN_PLUGIN_MODULES, hookimpl, load_plugins
from smt.plugins._manager import BLOCKLIST_ENV, UnknownPluginError
from smt.record import Record
from smt.transform import Transform

EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "plugin-example"


@pytest.fixture(scope="module")
def example_site(tmp_path_factory) -> pathlib.Path:
    """A directory where pip installed examples/plugin-example, with its dist-info."""
    work = tmp_path_factory.mktemp("example-plugin")
    source = work / "source"  # pip builds in place: keep build/ out of the repository
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    target = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return target


@pytest.fixture
def installed(example_site, monkeypatch) -> pathlib.Path:
    monkeypatch.syspath_prepend(str(example_site))
    monkeypatch.delenv(BLOCKLIST_ENV, raising=False)
    return example_site


def _write_distribution(site: pathlib.Path, name: str, entry_points: str, modules: dict[str, str]) -> None:
    """A distribution installed by hand: its modules and a minimal dist-info."""
    dist_info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (dist_info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for module, source in modules.items():
        (site / f"{module}.py").write_text(textwrap.dedent(source))


@pytest.fixture
def broken_site(tmp_path, monkeypatch) -> pathlib.Path:
    """A distribution whose entry point raises when imported."""
    site = tmp_path / "broken-site"
    _write_distribution(
        site,
        "smt-broken-plugin",
        "[smt]\nbroken = smt_broken_plugin\n",
        {"smt_broken_plugin": "raise RuntimeError('broken on purpose')\n"},
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delenv(BLOCKLIST_ENV, raising=False)
    return site


def _plugin_module(name: str, **hooks) -> types.ModuleType:
    """A plugin module built in memory, with ``hooks`` as its hook implementations."""
    module = types.ModuleType(name)
    for hook_name, classes in hooks.items():
        setattr(module, hook_name, hookimpl(lambda classes=classes: list(classes)))
    return module


# --- discovery through the installed example plugin --------------------------------


def test_installed_plugin_is_found_by_name_with_its_origin(installed):
    plugins = load_plugins()
    transform = plugins.lookup("transform", "reverse-value")
    predicate = plugins.lookup("predicate", "value-contains")
    assert transform.origin == predicate.origin == "example"
    assert transform.cls.__module__ == "smt_example_plugin.transforms"
    assert str(installed) in sys.modules["smt_example_plugin"].__file__
    # built-ins are still there, from their own modules
    assert plugins.lookup("converter", "string").origin == "converters._plugin"


def test_installed_plugin_classes_work(installed):
    plugins = load_plugins()
    reverse = plugins.get("transform", "reverse-value")()
    reverse.configure({})
    assert reverse.apply(Record(value="héllo".encode())).value == "olléh".encode()
    assert reverse.apply(Record(value="abc")).value == "cba"
    by_bytes = plugins.get("transform", "reverse-value")()
    by_bytes.configure({"unit": "bytes"})
    assert by_bytes.apply(Record(value=b"\x01\x02\x03")).value == b"\x03\x02\x01"
    with pytest.raises(DataError, match="ReverseValue needs a string or bytes value, found: int"):
        reverse.apply(Record(value=5))

    contains = plugins.get("predicate", "value-contains")()
    contains.configure({"substring": "secret"})
    assert [contains.test(Record(value=v)) for v in (b"top secret", "no", None)] == [True, False, False]


def test_installed_plugin_sink_with_the_core_alone_runs_a_pipeline(installed, spark, tmp_path):
    from smt.pipeline import PipelineSpec, run_pipeline

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("one\ntwo\nthree\n")
    props = {
        "source": "file",
        "source.path": str(tmp_path / "in"),
        "source.format": "text",
        "transforms": "route",
        "transforms.route.type": "RegexRouter",
        "transforms.route.regex": ".*",
        "transforms.route.replacement": "out",
        "sink": "com.example.ValuesFileSink",
        "sink.path": str(tmp_path / "out"),
    }
    spec = PipelineSpec.from_properties(props, plugins=load_plugins())
    # Only write: no checks, no encoding, no compiled input; the sink never leaves the driver.
    roles = spec.sink_roles
    assert (roles.record_checks, roles.value_encoding, roles.compiled) == (None, None, None)
    result = run_pipeline(spec, spark=spark)
    written = sorted(line for f in (tmp_path / "out").glob("part-*") for line in f.read_text().splitlines())
    assert written == ["one", "three", "two"]
    assert (result.counts.read, result.counts.written) == (3, 3)


def test_installed_plugin_config_is_validated_with_full_keys(installed):
    plugins = load_plugins()
    from smt.plugin import PluginContext

    reverse = plugins.get("transform", "reverse-value")()
    expected = r"^transforms\.rev\.unit: must be one of chars, bytes; got 'words'$"
    with pytest.raises(ConfigError, match=expected):
        reverse.configure({"unit": "words"}, PluginContext("rev", "transforms.rev."))
    contains = plugins.get("predicate", "value-contains")()
    with pytest.raises(ConfigError, match=r"^predicates\.p\.substring: is required and has no default$"):
        contains.configure({}, PluginContext("p", "predicates.p."))


def test_installed_plugin_found_by_alias(installed):
    plugins = load_plugins()
    by_alias = plugins.lookup("transform", "com.example.ReverseValue")
    assert by_alias is plugins.lookup("transform", "reverse-value")
    assert plugins.lookup("predicate", " com.example.ValueContains ").name == "value-contains"


def test_without_entry_points_the_installed_plugin_is_absent(installed):
    with pytest.raises(UnknownPluginError, match="unknown transform 'reverse-value'"):
        load_plugins(entry_points=False).lookup("transform", "reverse-value")


# --- blocklist ------------------------------------------------------------------


def test_blocklist_argument_leaves_the_plugin_out(installed):
    plugins = load_plugins(blocklist=["example"])
    with pytest.raises(PluginError, match=r"^unknown transform 'reverse-value'; known: "):
        plugins.lookup("transform", "reverse-value")
    assert plugins.manager.is_blocked("example")
    assert all(r.origin != "example" for r in plugins.registrations())


def test_blocklist_environment_variable(installed, monkeypatch):
    monkeypatch.setenv(BLOCKLIST_ENV, " other , example ")
    plugins = load_plugins()
    with pytest.raises(PluginError, match="unknown predicate 'value-contains'"):
        plugins.lookup("predicate", "value-contains")
    assert plugins.lookup("converter", "string")


def test_blocklist_can_drop_a_builtin_module(installed):
    plugins = load_plugins(blocklist=["converters._plugin"])
    with pytest.raises(PluginError, match="unknown converter 'string'; known: "):
        plugins.lookup("converter", "string")
    assert plugins.lookup("transform", "reverse-value").origin == "example"


def test_blocklist_skips_a_broken_plugin_without_importing_it(broken_site):
    load_plugins(blocklist=["broken"])
    assert "smt_broken_plugin" not in sys.modules


# --- errors ---------------------------------------------------------------------


def test_entry_point_that_fails_to_import_names_the_plugin(broken_site):
    expected = (
        r"^plugin 'broken' \(distribution smt-broken-plugin\) failed to load from "
        r"'smt_broken_plugin': RuntimeError: broken on purpose$"
    )
    with pytest.raises(PluginError, match=expected) as info:
        load_plugins()
    assert isinstance(info.value.__cause__, RuntimeError)


def test_entry_point_naming_a_missing_module(tmp_path, monkeypatch):
    site = tmp_path / "site"
    _write_distribution(site, "smt-ghost", "[smt]\nghost = smt_ghost_missing:hooks\n", {})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delenv(BLOCKLIST_ENV, raising=False)
    with pytest.raises(PluginError, match=r"plugin 'ghost' \(distribution smt-ghost\).*ModuleNotFoundError"):
        load_plugins()


class _Clash(Transform):
    """Claims the example plugin's name."""

    name = "reverse-value"


def test_two_plugins_registering_the_same_name_is_an_error_naming_both(installed):
    clash = _plugin_module("clashing_plugin", smt_transforms=[_Clash])
    with pytest.raises(PluginError, match="transform name 'reverse-value' from plugin") as info:
        load_plugins(extra_plugins=[clash])
    message = str(info.value)
    assert "'clashing_plugin'" in message and "'example'" in message


def test_an_alias_clashing_with_a_name_is_an_error(installed):
    class ByAlias(Transform):
        name = "something-else"
        aliases = ("com.example.ReverseValue",)

    clash = _plugin_module("alias_plugin", smt_transforms=[ByAlias])
    with pytest.raises(PluginError, match=r"transform name 'com\.example\.ReverseValue' from plugin") as info:
        load_plugins(extra_plugins=[clash])
    assert "'alias_plugin'" in str(info.value) and "'example'" in str(info.value)


def test_plugin_class_without_a_name_is_an_error():
    class Nameless(Transform):
        pass

    plugin = _plugin_module("nameless_plugin", smt_transforms=[Nameless])
    expected = r"^plugin 'nameless_plugin' registered transform .*Nameless.* without a name$"
    with pytest.raises(PluginError, match=expected):
        load_plugins(entry_points=False, extra_plugins=[plugin])


def test_hook_that_raises_names_the_plugin_and_hook():
    module = types.ModuleType("failing_plugin")

    @hookimpl
    def smt_predicates():
        raise RuntimeError("cannot list")

    module.smt_predicates = smt_predicates
    expected = r"^plugin 'failing_plugin' failed in hook smt_predicates: cannot list$"
    with pytest.raises(PluginError, match=expected):
        load_plugins(entry_points=False, extra_plugins=[module])


def test_unknown_hook_names_the_plugin():
    module = _plugin_module("typo_plugin", smt_transfroms=[])
    with pytest.raises(PluginError, match=r"^plugin 'typo_plugin' is invalid: .*smt_transfroms"):
        load_plugins(entry_points=False, extra_plugins=[module])


def test_registering_the_same_plugin_name_twice_names_it():
    first = _plugin_module("twice_plugin")
    second = _plugin_module("twice_plugin")
    with pytest.raises(PluginError, match=r"^plugin 'twice_plugin' cannot be registered: "):
        load_plugins(entry_points=False, extra_plugins=[first, second])


def test_unknown_name_lists_known_names():
    class Zeta(Transform):
        name = "zeta"

    class Alpha(Transform):
        name = "alpha"
        aliases = ("com.example.Alpha",)

    own = _plugin_module("own_plugin", smt_transforms=[Zeta, Alpha])
    plugins = load_plugins(entry_points=False, blocklist=BUILTIN_PLUGIN_MODULES, extra_plugins=[own])
    with pytest.raises(UnknownPluginError, match=r"^unknown transform 'omega'; known: alpha, zeta$") as info:
        plugins.lookup("transform", "omega")
    assert isinstance(info.value, KeyError)  # callers may still catch KeyError
    with pytest.raises(PluginError, match=r"^unknown converter 'avro'; known: \(none\)$"):
        plugins.get("converter", "avro")


def test_installed_plugin_appears_in_the_generated_reference(installed):
    from smt.reference import reference_markdown

    markdown = reference_markdown(load_plugins())
    section = markdown[markdown.index("### `reverse-value`") :].split("\n### ", 1)[0]
    assert "Reverses the record value, a string or bytes." in section
    assert "- Provided by: `example`" in section
    assert "| `transforms.<alias>.unit` | string | `chars` | medium |" in section


# --- a wrong name gets help (#34 item 7) ------------------------------------------


@pytest.mark.parametrize(
    "kind, name, hint",
    [
        ("transform", "MaskFeild$Value", "(did you mean 'MaskField$Value'?)"),
        ("transform", "org.apache.kafka.connect.transforms.MaskFeild$Value",
         "(did you mean 'org.apache.kafka.connect.transforms.MaskField$Value'?)"),
        ("converter", "jsn", "(did you mean 'json'?)"),
        ("predicate", "TopicNameMatchs", "(did you mean 'TopicNameMatches'?)"),
        ("source", "kafak", "(did you mean 'kafka'?)"),
        ("sink", "consle", "(did you mean 'console'?)"),
        ("transform", "MaskField", "(it comes in variants, one for each part of the record: MaskField$Key, "
         "MaskField$Value)"),
        ("transform", "org.apache.kafka.connect.transforms.MaskField",
         "(it comes in variants, one for each part of the record: org.apache.kafka.connect.transforms.MaskField$Key, "
         "org.apache.kafka.connect.transforms.MaskField$Value)"),
    ],
)  # fmt: skip
def test_a_misspelt_or_partial_name_says_what_to_write(kind, name, hint):
    with pytest.raises(UnknownPluginError, match=rf"^unknown {kind} '{re.escape(name)}' {re.escape(hint)}; known: "):
        load_plugins(entry_points=False).lookup(kind, name)


def test_a_name_with_nothing_close_lists_the_known_names_only():
    with pytest.raises(UnknownPluginError, match=r"^unknown converter 'protobuf'; known: avro, "):
        load_plugins(entry_points=False).lookup("converter", "protobuf")
