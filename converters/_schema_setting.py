"""Reading a schema given inline or as a file: the ``X`` / ``X.file`` setting pair."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from smt.errors import ConfigError

__all__ = ["load_schema_setting"]


def load_schema_setting(inline: str | None, file: str | None, key: str, what: str) -> tuple[str, Any] | None:
    """The parsed JSON of setting ``key`` (inline) or ``key.file``, with the key it came from.

    ``what`` names the schema kind in errors ("Avro schema", "JSON Schema").
    Returns None when neither is set; raises :class:`ConfigError` naming the
    key when both are, when the file cannot be read, or when it is not JSON.
    """
    if inline and file:
        raise ConfigError.for_key(key, f"give either {_short(key)} or {_short(key)}.file, not both")
    if file:
        key = f"{key}.file"
        try:
            text = Path(file).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError.for_key(key, f"cannot read {what} file '{file}': {exc.strerror}") from exc
    elif inline:
        text = inline
    else:
        return None
    try:
        return key, json.loads(text)
    except ValueError as exc:
        raise ConfigError.for_key(key, f"is not valid JSON: {exc}") from exc


def _short(key: str) -> str:
    # "transforms.x.value.converter.avro.schema" -> "avro.schema"
    parts = key.split(".")
    return ".".join(parts[-2:])
