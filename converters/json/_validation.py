"""Validating JSON payloads against a JSON Schema (the ``json.schema`` options)."""

from __future__ import annotations

from typing import Any

from converters._schema_setting import load_schema_setting
from smt.errors import ConfigError, DataError


class PayloadValidator:
    """Checks each payload against one JSON Schema; the schema is checked once, up front."""

    def __init__(self, schema: dict, source: str) -> None:
        import jsonschema

        validator_class = jsonschema.validators.validator_for(schema)
        try:
            validator_class.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise ConfigError.for_key(source, f"is not a valid JSON Schema: {exc.message}") from exc
        self._validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
        self._best_match = jsonschema.exceptions.best_match

    def validate(self, payload: Any) -> None:
        """Raise :class:`DataError` naming the path and the rule when ``payload`` does not match."""
        error = self._best_match(self._validator.iter_errors(payload))
        if error is None:
            return
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        raise DataError(
            f"payload does not match the JSON Schema at {path}: rule '{error.validator}' failed: {error.message}"
        )


def load_validator(inline: str | None, file: str | None, prefix: str) -> PayloadValidator | None:
    """The validator for the ``json.schema`` (inline) or ``json.schema.file`` setting, if any."""
    loaded = load_schema_setting(inline, file, prefix + "json.schema", "JSON Schema")
    if loaded is None:
        return None
    key, schema = loaded
    if not isinstance(schema, (dict, bool)):
        raise ConfigError.for_key(key, "a JSON Schema must be an object or a boolean")
    return PayloadValidator(schema, key)
