"""Keys a pipeline file sets more than once: a warning (Java's last-wins rule holds), an error with ``--strict``.

Kafka Connect reads a properties file with ``java.util.Properties``, where a
repeated key silently takes its last value; the first is most often a
forgotten line.  :func:`duplicate_notices` names each such key and its lines;
:func:`with_notices` adds them to an error as warnings, or as problems when
strict.
"""

from __future__ import annotations

from typing import Any, Mapping

from smt.config_review import ConfigNotice
from smt.errors import ConfigError, ConfigProblem

__all__ = ["duplicate_notices", "with_notices"]


def duplicate_notices(props: Mapping[str, Any], overrides: Mapping[str, Any] | None = None) -> list[ConfigNotice]:
    """A ``duplicate`` notice per key that ``props`` (a loaded file) sets more than once."""
    notices = []
    for key, lines in getattr(props, "duplicates", {}).items():
        used = "--set replaces them all" if overrides and key in overrides else f"line {lines[-1]} is used"
        listed = ", ".join(map(str, lines))
        notices.append(ConfigNotice(key, "duplicate", f"is set {len(lines)} times (lines {listed}); {used}"))
    return notices


def with_notices(error: ConfigError, notices: list[ConfigNotice], strict: bool) -> ConfigError:
    """``error`` with ``notices`` added: as problems when ``strict``, else as warnings beside its problems."""
    if strict:
        combined = ConfigError([*(ConfigProblem(n.key, n.message) for n in notices), *error.problems])
        combined.notices = error.notices
        return combined
    error.notices = [*notices, *error.notices]
    return error
