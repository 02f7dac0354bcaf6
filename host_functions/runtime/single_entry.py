"""Checks shared by the guest ABIs whose guests have one fixed entry point (proxy-wasm, Redpanda).

Such a guest is called where its ABI says (``proxy_on_downstream_data``,
``_start``) and served on one path, so ``function.name`` and ``path`` have
nothing to choose; and it is started once at configuration so that a guest
that cannot start fails there, naming ``module.path``.
"""

from __future__ import annotations

from typing import Any, Callable

from smt.errors import ConfigError

__all__ = ["refuse_entry_choice", "start_once"]


def refuse_entry_choice(config: dict[str, Any], key_prefix: str, guests: str, entry: str, path: str) -> None:
    """Refuse ``function.name`` (``guests`` are entered at ``entry``) and a ``path`` other than fast (``path``)."""
    if config["function.name"]:
        raise ConfigError.for_key(
            f"{key_prefix}function.name", f"is not used by {guests} ({entry}): remove it", config["function.name"]
        )
    if config["path"] != "fast":
        raise ConfigError.for_key(f"{key_prefix}path", f"{guests} run on one path ({path})", config["path"])


def start_once(
    start: Callable[[], object],
    close: Callable[[], None],
    failure: type[Exception],
    key_prefix: str,
    describe: Callable[[Exception], str],
) -> None:
    """Start the guest now, under the time limit, then ``close`` it; a ``failure`` to start is a ConfigError."""
    try:
        start()
    except failure as exc:
        raise ConfigError.for_key(f"{key_prefix}module.path", describe(exc)) from exc
    finally:
        close()
