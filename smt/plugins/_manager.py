"""Loading plugins and looking them up by name or alias."""

from __future__ import annotations

import difflib
import functools
import importlib
import os
from dataclasses import dataclass
from typing import Any, Iterable

import pluggy

from smt.errors import PluginError
from smt.plugins import hookspecs

ENTRY_POINT_GROUP = "smt"

#: Modules that register the built-in plugins, through the same hooks.
BUILTIN_PLUGIN_MODULES = (
    "converters._plugin",
    "connectors._plugin",
    "smt.transforms._plugin",
    "smt.transforms.debezium._plugin",
    "smt.transforms.confluent._plugin",
    "smt.predicates._plugin",
    "host_functions._plugin",
    "smt.config_providers._plugin",
)

#: Environment variable: comma-separated plugin names to leave unloaded.
BLOCKLIST_ENV = "SMT_DISABLE_PLUGINS"

KINDS = {
    "transform": "smt_transforms",
    "predicate": "smt_predicates",
    "converter": "smt_converters",
    "connector": "smt_connectors",
    "config_provider": "smt_config_providers",
    "guest_abi": "smt_guest_abis",
}

#: The kinds users look plugins up by; connectors split into sources and sinks.
LOOKUP_KINDS = ("transform", "predicate", "converter", "source", "sink", "config_provider")


class UnknownPluginError(PluginError, KeyError):
    """No plugin of that kind has that name or alias; the message lists the known names."""

    def __str__(self) -> str:
        # KeyError would show the message quoted, as if it were a key.
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class Registration:
    """One plugin class as registered: its kind, names and the plugin it came from."""

    kind: str
    name: str
    aliases: tuple[str, ...]
    cls: Any
    origin: str


class Plugins:
    """The registry of everything the loaded plugins provide."""

    def __init__(self, manager: pluggy.PluginManager) -> None:
        self.manager = manager
        self._by_kind: dict[str, dict[str, Registration]] = {}
        self._registrations: list[Registration] = []
        for kind, hook_name in KINDS.items():
            self._collect(kind, hook_name)

    def _collect(self, kind: str, hook_name: str) -> None:
        hook = getattr(self.manager.hook, hook_name)
        for impl in reversed(hook.get_hookimpls()):
            origin = self.manager.get_name(impl.plugin) or repr(impl.plugin)
            try:
                classes = impl.function() or []
            except Exception as exc:
                raise PluginError(f"plugin '{origin}' failed in hook {hook_name}: {exc}") from exc
            for cls in classes:
                actual_kind = _connector_kind(cls) if kind == "connector" else kind
                self._register(self._by_kind.setdefault(actual_kind, {}), actual_kind, cls, origin)

    def _register(self, table: dict, kind: str, cls: Any, origin: str) -> None:
        name = getattr(cls, "name", "")
        if not name:
            raise PluginError(f"plugin '{origin}' registered {kind} {cls!r} without a name")
        registration = Registration(kind, name, tuple(getattr(cls, "aliases", ())), cls, origin)
        for key in (name, *registration.aliases):
            existing = table.get(key)
            if existing is not None and existing.cls is not cls:
                raise PluginError(
                    f"{kind} name '{key}' from plugin '{origin}' is already registered by plugin '{existing.origin}'"
                )
            table[key] = registration
        self._registrations.append(registration)

    def lookup(self, kind: str, name: str) -> Registration:
        """The registration for ``name`` (a short name or an alias).

        Raises :class:`UnknownPluginError` (a ``KeyError``) listing the known
        names when there is none.
        """
        table = self._by_kind.get(kind, {})
        found = table.get(name) or table.get(name.strip())
        if found is None:
            known = ", ".join(sorted({r.name for r in table.values()}))
            raise UnknownPluginError(
                f"unknown {kind} '{name}'{self._hint(kind, name.strip())}; known: {known or '(none)'}"
            )
        return found

    def variants(self, kind: str, name: str) -> list[str]:
        """The names that are ``name`` with a ``$`` variant (``MaskField`` -> ``MaskField$Key``, ``MaskField$Value``)."""
        return sorted(key for key in self._by_kind.get(kind, {}) if key.startswith(name + "$"))

    def _hint(self, kind: str, name: str) -> str:
        """What to write instead of an unknown ``name``: its variants, or the nearest name (a typo)."""
        variants = self.variants(kind, name)
        if variants:
            return f" (it comes in variants, one for each part of the record: {', '.join(variants)})"
        close = _nearest(name, self._by_kind.get(kind, {}))
        return f" (did you mean '{close}'?)" if close else ""

    def get(self, kind: str, name: str) -> Any:
        return self.lookup(kind, name).cls

    def registrations(self, kind: str | None = None) -> list[Registration]:
        return [r for r in self._registrations if kind is None or r.kind == kind]

    def host_functions(self) -> list[Any]:
        functions: list[Any] = []
        for result in self.manager.hook.smt_host_functions():
            functions.extend(result or [])
        return functions


def _connector_kind(cls: Any) -> str:
    # Source and Sink declare the kind (smt.connector): the registry sits below the interfaces.
    kind = getattr(cls, "connector_kind", None) if isinstance(cls, type) else None
    if kind in ("source", "sink"):
        return kind
    raise PluginError(f"connector {cls!r} is neither a Source nor a Sink (see smt.connector)")


def create_plugin_manager(
    *,
    entry_points: bool = True,
    extra_plugins: Iterable[Any] = (),
    blocklist: Iterable[str] | None = None,
) -> pluggy.PluginManager:
    """A plugin manager: specs, blocklist, entry points, built-ins, then a check."""
    manager = pluggy.PluginManager("smt")
    manager.add_hookspecs(hookspecs)
    if blocklist is None:
        blocklist = [n.strip() for n in os.environ.get(BLOCKLIST_ENV, "").split(",") if n.strip()]
    for name in blocklist:
        manager.set_blocked(name)
    if entry_points:
        _load_entry_points(manager)
    for module_name in BUILTIN_PLUGIN_MODULES:
        if manager.is_blocked(module_name):
            continue
        module = importlib.import_module(module_name)
        _register(manager, module, module_name)
    for plugin in extra_plugins:
        _register(manager, plugin, None)
    try:
        manager.check_pending()
    except pluggy.PluginValidationError as exc:
        name = manager.get_name(exc.plugin) or repr(exc.plugin)
        raise PluginError(f"plugin '{name}' is invalid: {exc}") from exc
    return manager


def _register(manager: pluggy.PluginManager, plugin: Any, name: str | None) -> None:
    """Register ``plugin``, turning pluggy's complaints into a PluginError naming it."""
    try:
        manager.register(plugin, name=name)
    except (pluggy.PluginValidationError, ValueError) as exc:
        shown = name or manager.get_canonical_name(plugin)
        raise PluginError(f"plugin '{shown}' cannot be registered: {exc}") from exc


def _load_entry_points(manager: pluggy.PluginManager) -> None:
    from importlib.metadata import entry_points

    for entry_point in entry_points(group=ENTRY_POINT_GROUP):
        if manager.is_blocked(entry_point.name) or manager.get_plugin(entry_point.name):
            continue
        try:
            plugin = entry_point.load()
        except Exception as exc:
            dist = getattr(entry_point, "dist", None)
            where = f" (distribution {dist.name})" if dist is not None else ""
            raise PluginError(
                f"plugin '{entry_point.name}'{where} failed to load from "
                f"'{entry_point.value}': {type(exc).__name__}: {exc}"
            ) from exc
        _register(manager, plugin, entry_point.name)


def load_plugins(**kwargs: Any) -> Plugins:
    """A fresh :class:`Plugins` registry (see :func:`create_plugin_manager`)."""
    return Plugins(create_plugin_manager(**kwargs))


@functools.lru_cache(maxsize=1)
def default_plugins() -> Plugins:
    """The registry with entry points and built-ins, built once per process."""
    return load_plugins()


def _nearest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate ``name`` is most likely a typo of, judged without the suffix the two share.

    Plugin names share long suffixes (``ConfigProvider``, ``Converter``), which would make
    ``VaultConfigProvider`` look like a typo of ``FileConfigProvider``.
    """
    best, best_ratio = None, 0.6
    for candidate in candidates:
        shared = len(os.path.commonprefix([name[::-1], candidate[::-1]]))
        ratio = difflib.SequenceMatcher(None, name[: len(name) - shared], candidate[: len(candidate) - shared]).ratio()
        if ratio >= best_ratio and (best is None or ratio > best_ratio):
            best, best_ratio = candidate, ratio
    return best
