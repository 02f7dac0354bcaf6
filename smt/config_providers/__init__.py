"""Kafka's config providers: ``${provider:[path:]key}`` variables in a pipeline file.

A pipeline file names its providers as a Kafka client or worker does::

    config.providers=env,secrets
    config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
    config.providers.secrets.class=org.apache.kafka.common.config.provider.FileConfigProvider
    config.providers.secrets.param.allowed.paths=/etc/pipeline
    sink.kafka.bootstrap.servers=${env:KAFKA_BOOTSTRAP}
    sink.kafka.sasl.jaas.config=${secrets:/etc/pipeline/kafka.properties:jaas}

:func:`resolve_variables` replaces every variable before the pipeline is
validated, with the semantics of Kafka's ``ConfigTransformer``; the result
remembers what it replaced, so that messages can show the variables instead of
the values (:meth:`ResolvedProperties.mask`).  Providers are plugins (hook
``smt_config_providers``); the built-ins are Kafka's three.
"""

from smt.config_providers._builtin import DirectoryConfigProvider, EnvVarConfigProvider, FileConfigProvider
from smt.config_providers._provider import ConfigProvider
from smt.config_providers._transformer import ResolvedProperties, SecretMask, resolve_variables

__all__ = [
    "ConfigProvider",
    "DirectoryConfigProvider",
    "EnvVarConfigProvider",
    "FileConfigProvider",
    "ResolvedProperties",
    "SecretMask",
    "resolve_variables",
]
