"""Kafka's config providers and ``${provider:[path:]key}`` variables, resolved as Kafka resolves them."""

from __future__ import annotations

import logging
import os

import pytest

from smt.config_providers import resolve_variables
from smt.errors import ConfigError

KAFKA = "org.apache.kafka.common.config.provider"


def providers(**classes: str) -> dict[str, str]:
    props = {"config.providers": ",".join(classes)}
    props.update({f"config.providers.{name}.class": cls for name, cls in classes.items()})
    return props


ENV = providers(env=f"{KAFKA}.EnvVarConfigProvider")


def test_an_environment_variable_replaces_its_variable_anywhere_in_a_value(monkeypatch):
    monkeypatch.setenv("SMT_HOST", "broker")
    resolved = resolve_variables({**ENV, "servers": "${env:SMT_HOST}:9092,${env:SMT_HOST}:9093", "plain": "x"})
    assert resolved.values["servers"] == "broker:9092,broker:9093"
    assert resolved.values["plain"] == "x"
    assert resolved.written["servers"] == "${env:SMT_HOST}:9092,${env:SMT_HOST}:9093"


def test_an_unknown_variable_stays_as_written_with_a_warning(monkeypatch, caplog):
    monkeypatch.delenv("SMT_MISSING", raising=False)
    with caplog.at_level(logging.WARNING, "smt.config_providers"):
        resolved = resolve_variables({**ENV, "a": "${env:SMT_MISSING}", "b": "${vault:secret:x}"})
    assert resolved.values["a"] == "${env:SMT_MISSING}" and resolved.values["b"] == "${vault:secret:x}"
    assert "a: ${env:SMT_MISSING} stays as written: config provider 'env' has no 'SMT_MISSING'" in caplog.text
    assert "b: ${vault:secret:x} stays as written: no config provider 'vault' is configured" in caplog.text


def test_the_allowlist_pattern_must_match_the_whole_name(monkeypatch):
    monkeypatch.setenv("SMT_OK", "yes")
    monkeypatch.setenv("XSMT_OK", "no")
    props = {
        **ENV,
        "config.providers.env.param.allowlist.pattern": "SMT_.*",
        "a": "${env:SMT_OK}",
        "b": "${env:XSMT_OK}",
    }
    resolved = resolve_variables(props)
    assert (resolved.values["a"], resolved.values["b"]) == ("yes", "${env:XSMT_OK}")


def test_a_path_is_an_error_for_environment_variables():
    with pytest.raises(ConfigError, match=r"^a: config provider 'env': Path is not supported for "
                       r"EnvVarConfigProvider, invalid value '/etc'$"):  # fmt: skip
        resolve_variables({**ENV, "a": "${env:/etc:HOME}"})


def test_a_properties_file_provides_its_keys(tmp_path):
    secrets = tmp_path / "secrets.properties"
    secrets.write_text("password = s3cr3t\\\n  -continued\nuser: alice\n", encoding="utf-8")
    props = {
        **providers(file="FileConfigProvider"),
        "jaas": f"user=${{file:{secrets}:user}} pw=${{file:{secrets}:password}}",
    }
    assert resolve_variables(props).values["jaas"] == "user=alice pw=s3cr3t-continued"


def test_an_unreadable_file_names_the_key_and_the_file(tmp_path):
    with pytest.raises(ConfigError, match=r"^sink\.x: config provider 'file': Could not read properties from file "
                       + str(tmp_path / "none")):  # fmt: skip
        resolve_variables({**providers(file=f"{KAFKA}.FileConfigProvider"), "sink.x": f"${{file:{tmp_path}/none:k}}"})


def test_allowed_paths_refuse_paths_outside_them(tmp_path, caplog):
    inside, outside = tmp_path / "in", tmp_path / "inside-not"
    inside.mkdir()
    outside.mkdir()
    (inside / "a.properties").write_text("k=1\n")
    (outside / "a.properties").write_text("k=2\n")
    props = {**providers(file="FileConfigProvider"), "config.providers.file.param.allowed.paths": str(inside),
             "a": f"${{file:{inside}/a.properties:k}}", "b": f"${{file:{outside}/a.properties:k}}",
             "c": f"${{file:{inside}/../inside-not/a.properties:k}}"}  # fmt: skip
    with caplog.at_level(logging.WARNING, "smt.config_providers"):
        values = resolve_variables(props).values
    # Kafka compares whole path elements, after normalising ".." away.
    assert (values["a"], values["b"], values["c"]) == ("1", props["b"], props["c"])
    assert f"The path {outside}/a.properties is not allowed to be accessed" in caplog.text


@pytest.mark.parametrize(
    "allowed, reason",
    [("relative/dir", "Path relative/dir is not absolute"), ("/no/such/dir", "Path /no/such/dir does not exist")],
)
def test_allowed_paths_must_be_absolute_and_exist(allowed, reason):
    props = {**providers(dir="DirectoryConfigProvider"), "config.providers.dir.param.allowed.paths": allowed}
    with pytest.raises(ConfigError, match=rf"^config\.providers\.dir\.param\.allowed\.paths: {reason}$"):
        resolve_variables(props)


def test_a_directory_provides_whole_files_trailing_line_break_included(tmp_path):
    (tmp_path / "password").write_text("hunter2\n")
    (tmp_path / "sub").mkdir()
    props = {**providers(dir=f"{KAFKA}.DirectoryConfigProvider"),
             "a": f"${{dir:{tmp_path}:password}}", "b": f"${{dir:{tmp_path}:sub}}"}  # fmt: skip
    values = resolve_variables(props).values
    assert values["a"] == "hunter2\n"
    assert values["b"] == props["b"]  # a folder is not a value


def test_provider_settings_are_read_as_written_not_resolved(monkeypatch):
    monkeypatch.setenv("SMT_PATTERN", "SMT_.*")
    props = {**ENV, "config.providers.env.param.allowlist.pattern": "${env:SMT_PATTERN}", "a": "${env:SMT_PATTERN}"}
    # Taken literally, the pattern matches no variable name: nothing is served.
    assert resolve_variables(props).values["a"] == "${env:SMT_PATTERN}"


def test_a_bad_allowlist_pattern_names_its_key():
    with pytest.raises(ConfigError, match=r"^config\.providers\.env\.param\.allowlist\.pattern: is not a valid "
                       r"regular expression"):  # fmt: skip
        resolve_variables({**ENV, "config.providers.env.param.allowlist.pattern": "(unclosed"})


def test_a_provider_without_a_class_or_with_an_unknown_class_is_a_problem():
    props = {"config.providers": "env, vault", "config.providers.vault.class": "com.example.VaultConfigProvider"}
    with pytest.raises(ConfigError) as raised:
        resolve_variables(props)
    assert [str(p) for p in raised.value.problems] == [
        "config.providers.env.class: is required: config.providers names 'env'",
        "config.providers.vault.class: Could not load config provider class: unknown config_provider "
        "'com.example.VaultConfigProvider'; known: DirectoryConfigProvider, EnvVarConfigProvider, FileConfigProvider",
    ]


def test_mask_shows_variables_instead_of_their_values(monkeypatch):
    monkeypatch.setenv("SMT_SECRET", "p4ssw0rd-xyz")
    monkeypatch.setenv("SMT_ONE", "1")
    resolved = resolve_variables({**ENV, "jaas": "password=${env:SMT_SECRET};", "n": "${env:SMT_ONE}"})
    assert resolved.mask("login failed for password=p4ssw0rd-xyz; at line 1") == (
        "login failed for password=${env:SMT_SECRET}; at line 1"
    )
    error = ConfigError.for_key("n", "must be at least 5; got 1")
    assert str(resolved.mask_error(error)) == "n: must be at least 5; got ${env:SMT_ONE}"


def test_variables_are_not_resolved_without_config_providers(monkeypatch):
    monkeypatch.setenv("SMT_X", "x")
    assert resolve_variables({"a": "${env:SMT_X}"}).values == {"a": "${env:SMT_X}"}
    assert os.environ["SMT_X"] == "x"


def test_resolved_keys_are_worked_out_once(monkeypatch):
    # shown_props asks once per key: recomputing the set each time made a 10,000-stage chain quadratic
    monkeypatch.setenv("SMT_TEST_X", "x-value")
    variables = resolve_variables(
        {"config.providers": "env", "config.providers.env.class": "EnvVarConfigProvider", "a": "${env:SMT_TEST_X}"}
    )
    assert variables.resolved_keys == {"a"}
    assert variables.resolved_keys is variables.resolved_keys
