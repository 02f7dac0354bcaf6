"""Which configuration values are secrets, and the same settings with the secrets left out, for files.

A file we write (a streaming checkpoint's fingerprint of the pipeline, for one) may outlive the run and
be read by anyone who can read the checkpoint: it holds no password, whether the pipeline file wrote it
literally or a config provider supplied it.  A value is a secret when its key says so, as Kafka's own
``PASSWORD`` settings are named (``...password``, ``...secret``, ``...token``, ``sasl.jaas.config``,
``basic.auth.user.info``, key and trust stores' keys), and a URL's credentials are one wherever they
appear (``jdbc:postgresql://user:pw@host/db``, ``?password=...``).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["SECRET_SHOWN", "is_secret_key", "without_secrets"]

#: What a file holds in place of a secret.
SECRET_SHOWN = "<secret, not stored>"

_SECRET_KEY = re.compile(
    r"(^|[._-])(password|passwd|pwd|secret|token|credentials?|jaas\.config|user\.info|api\.key|private\.key"
    r"|key\.password|keystore\.key|access\.key)$",
    re.IGNORECASE,
)
#: user:password@ in a URL (any scheme, JDBC's included).
_URL_CREDENTIALS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.:-]*://)(?P<userinfo>[^/@\s]*)@")
#: A password given as a URL query or JDBC property: password=...; up to the next separator.
_QUERY_SECRET = re.compile(r"(?P<name>(?:^|[?&;])(?:password|passwd|pwd|secret|token)=)(?P<value>[^&;]*)", re.I)


def is_secret_key(key: str) -> bool:
    """Whether ``key``'s value is a secret, by its name (``sink.option.password``, ``...ssl.key.password``)."""
    return bool(_SECRET_KEY.search(key))


def without_secrets(props: Mapping[str, Any]) -> dict[str, str]:
    """``props`` as text, every secret value replaced by :data:`SECRET_SHOWN` and every URL's credentials
    removed from the value they sit in."""
    return {
        key: SECRET_SHOWN if is_secret_key(key) else _without_url_secrets(str(value)) for key, value in props.items()
    }


def _without_url_secrets(value: str) -> str:
    value = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{SECRET_SHOWN}@" if m["userinfo"] else m[0], value)
    return _QUERY_SECRET.sub(lambda m: f"{m['name']}{SECRET_SHOWN}", value)
