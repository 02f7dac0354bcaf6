"""Which user and password log in to the schema registry: Confluent's ``basic.auth.*`` keys.

Confluent's converters name where the credentials come from with
``basic.auth.credentials.source``:

- ``USER_INFO``: ``basic.auth.user.info`` (``user:password``);
- ``URL``: the ``user:password@`` of ``schema.registry.url``;
- ``SASL_INHERIT``: the ``username``/``password`` of a PLAIN or SCRAM
  ``sasl.jaas.config``.  Kafka Connect hands a converter only its own keys,
  so that line is the converter's (``value.converter.sasl.jaas.config``), not
  the source's Kafka settings.

Each key may also be written in its ``schema.registry.`` form
(``schema.registry.basic.auth.user.info``), as Confluent's serializers take
them; the short form wins when both are set.  Without a source, the user info
logs in when set, else the URL's credentials (what this project always did).
Every credential key is a PASSWORD: its value is never named in a message.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from converters.schema_registry import split_credentials
from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.errors import ConfigError

__all__ = ["CREDENTIALS_CONFIG", "registry_credentials"]

SOURCES = ("USER_INFO", "URL", "SASL_INHERIT")
_LONG = "schema.registry."
_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')

CREDENTIALS_CONFIG = ConfigDef()
for _prefix in ("", _LONG):
    CREDENTIALS_CONFIG = CREDENTIALS_CONFIG.define(
        _prefix + "basic.auth.credentials.source",
        ConfigType.STRING,
        None,
        one_of(*SOURCES, case_sensitive=False),
        Importance.MEDIUM,
        "Where the schema registry's credentials come from: USER_INFO (basic.auth.user.info), URL "
        "(user:password@ in schema.registry.url) or SASL_INHERIT (the converter's sasl.jaas.config). "
        "Unset: the user info when given, else the URL's."
        + (" The short form basic.auth.credentials.source wins." if _prefix else ""),
    ).define(
        _prefix + "basic.auth.user.info",
        ConfigType.PASSWORD,
        None,
        None,
        Importance.LOW,
        "user:password for the schema registry's HTTP basic authentication."
        + (" The short form basic.auth.user.info wins." if _prefix else ""),
    )
CREDENTIALS_CONFIG = CREDENTIALS_CONFIG.define(
    "sasl.jaas.config",
    ConfigType.PASSWORD,
    None,
    None,
    Importance.LOW,
    "With basic.auth.credentials.source=SASL_INHERIT: a PLAIN or SCRAM login module line whose "
    'username="..." and password="..." log in to the schema registry.',
)


def registry_credentials(config: Mapping[str, Any], url: str, prefix: str) -> tuple[str | None, bool]:
    """``(user:password or None, whether the URL's credentials may log in)`` for a parsed ``config``.

    ``prefix`` names the keys in errors (``value.converter.``).  Raises
    :class:`ConfigError` when the chosen source has nothing to give.
    """
    source_key, source = _either(config, "basic.auth.credentials.source")
    info_key, user_info = _either(config, "basic.auth.user.info")
    source = source.upper() if source else None
    if source is None:
        return user_info, True
    if source == "URL":
        if not any(credentials for _, credentials in map(split_credentials, url.split(","))):
            raise ConfigError.for_key(
                prefix + source_key, "is URL, but schema.registry.url has no user:password@ to log in with"
            )
        return None, True
    if source == "USER_INFO":
        if not user_info:
            raise ConfigError.for_key(
                prefix + source_key, f"is USER_INFO, so {prefix}basic.auth.user.info (user:password) is required"
            )
        if ":" not in user_info:
            raise ConfigError.for_key(prefix + info_key, "must be user:password (the value is not shown)")
        return user_info, False
    return _sasl_credentials(config.get("sasl.jaas.config"), prefix, source_key), False


def _either(config: Mapping[str, Any], name: str) -> tuple[str, Any]:
    if config.get(name):
        return name, config[name]
    return _LONG + name, config.get(_LONG + name)


def _sasl_credentials(jaas: str | None, prefix: str, source_key: str) -> str:
    if not jaas:
        raise ConfigError.for_key(
            prefix + source_key,
            f"is SASL_INHERIT, so {prefix}sasl.jaas.config is required: a converter sees only its own "
            "keys, not the source's or sink's Kafka settings",
        )
    if "PlainLoginModule" not in jaas and "ScramLoginModule" not in jaas:
        raise ConfigError.for_key(
            prefix + "sasl.jaas.config", "only a PLAIN or SCRAM login module gives a user and password to inherit"
        )
    options = dict(_JAAS_OPTION.findall(jaas))
    if "username" not in options or "password" not in options:
        raise ConfigError.for_key(prefix + "sasl.jaas.config", 'must give username="..." and password="..."')
    return f"{options['username']}:{options['password']}"
