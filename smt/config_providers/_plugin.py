"""Registers Kafka's config providers."""

from smt.plugins import hookimpl


@hookimpl
def smt_config_providers():
    from smt.config_providers import _builtin

    return [_builtin.EnvVarConfigProvider, _builtin.FileConfigProvider, _builtin.DirectoryConfigProvider]
