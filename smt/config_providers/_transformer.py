"""Replacing ``${provider:[path:]key}`` variables, as Kafka's ``ConfigTransformer`` does.

- ``config.providers`` names the providers (a comma-separated list; names are
  trimmed, as Kafka Connect's worker reads it); each needs
  ``config.providers.<name>.class`` (a provider's name or Kafka class name)
  and takes ``config.providers.<name>.param.<key>`` settings.  Provider
  settings are read as written: variables in them are not resolved.
- Every value of the file may hold variables, anywhere in the text, several
  times.  The pattern is Kafka's: ``${`` provider ``:`` [path ``:``] key ``}``.
- A variable whose provider is not configured, or whose key the provider does
  not have, stays as written (Kafka's rule); we also log a warning naming the
  key, since the value is then almost certainly wrong.  A provider that fails
  (a path it does not support, a file it cannot read) is a configuration
  problem naming the key that asked for it.

Two differences from Kafka, both about saying what is wrong instead of
ignoring it: a provider named in ``config.providers`` without a ``.class`` key,
and a class that is not a known provider, are configuration problems.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
import urllib.parse
from typing import Any, Mapping

from smt.errors import ConfigError, ConfigProblem
from smt.plugin import PluginContext

__all__ = ["ResolvedProperties", "SecretMask", "VARIABLE_PATTERN", "resolve_variables"]

log = logging.getLogger("smt.config_providers")

#: Kafka's ``ConfigTransformer.DEFAULT_PATTERN``.
VARIABLE_PATTERN = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")

PROVIDERS_KEY = "config.providers"

#: Resolved values shorter than this are masked only in messages about their own key: replacing
#: "1" or "on" everywhere in a message would garble it without hiding anything worth hiding.
_MIN_MASKED_LENGTH = 4


@dataclasses.dataclass(frozen=True)
class _Variable:
    text: str
    provider: str
    path: str
    key: str

    @classmethod
    def of(cls, match: re.Match) -> "_Variable":
        return cls(match.group(0), match.group(1), match.group(3) or "", match.group(4))


@dataclasses.dataclass(frozen=True)
class SecretMask:
    """Resolved values and what to show in their place: picklable, so executors mask what they write.

    Applied to every message that leaves a record's processing: dead-letter
    headers, ``errors.log.*`` lines, the error that stops a run.
    """

    #: (value, shown) pairs, longest value first.
    pairs: tuple[tuple[str, str], ...] = ()

    def __call__(self, text: str) -> str:
        for value, shown in self.pairs:
            if value in text:
                text = text.replace(value, shown)
        return text


def _url_secrets(value: str, shown: str) -> list[tuple[str, str]]:
    """A URL's ``user:password`` and password (raw and percent-decoded), shown as the variable's."""
    if "@" not in value or "://" not in value:
        return []
    pairs = []
    for url in value.split(","):
        try:
            userinfo, at, _ = urllib.parse.urlsplit(url.strip()).netloc.rpartition("@")
        except ValueError:
            continue
        if not at:
            continue
        password = userinfo.partition(":")[2]
        for secret in (userinfo, password, urllib.parse.unquote(password)):
            pairs.append((secret, f"<credentials of {shown}>"))
    return pairs


@dataclasses.dataclass
class ResolvedProperties:
    """A pipeline's properties with their variables replaced, and what was replaced."""

    #: The properties as the pipeline uses them.
    values: dict[str, Any]
    #: The properties as written (after ``--set`` overrides), variables and all.
    written: dict[str, Any]
    #: Variable text -> its value, for every variable that was replaced.
    replaced: dict[str, str] = dataclasses.field(default_factory=dict)

    @functools.cached_property
    def resolved_keys(self) -> frozenset[str]:
        """The keys whose value a provider changed (worked out once: callers ask once per key)."""
        return frozenset(k for k, v in self.values.items() if self.written.get(k) != v)

    def mask(self, text: str) -> str:
        """``text`` with every resolved value replaced by the variable(s) it came from."""
        return self.secret_mask()(text)

    def secret_mask(self) -> SecretMask:
        """What :meth:`mask` does, as an object to send to executors.

        Besides each resolved value: a URL's credentials in it (a schema
        registry's ``http://user:password@host``), alone.
        """
        pairs = [(str(self.values[k]), str(self.written[k])) for k in self.resolved_keys if k in self.written]
        pairs += [(value, variable) for variable, value in self.replaced.items()]
        pairs += [secret for value, shown in list(pairs) for secret in _url_secrets(value, shown)]
        kept = {value: shown for value, shown in pairs if len(value) >= _MIN_MASKED_LENGTH}
        return SecretMask(tuple(sorted(kept.items(), key=lambda pair: -len(pair[0]))))

    def mask_error(self, error: ConfigError) -> ConfigError:
        """``error`` with each problem's resolved value shown as written."""
        problems = []
        for problem in error.problems:
            reason = self.mask(problem.reason)
            if problem.key in self.resolved_keys and str(self.values[problem.key]):
                reason = reason.replace(str(self.values[problem.key]), str(self.written[problem.key]))
            value = self.written.get(problem.key, problem.value) if problem.key in self.resolved_keys else problem.value
            problems.append(ConfigProblem(problem.key, reason, value))
        masked = ConfigError(problems)
        masked.notices = error.notices  # they name keys, never values
        return masked


def resolve_variables(props: Mapping[str, Any], plugins: Any = None) -> ResolvedProperties:
    """Replace the variables in ``props`` with the values of the configured providers.

    Raises :class:`ConfigError` listing every provider problem (an unknown or
    misconfigured provider, a variable its provider refuses).
    """
    written = dict(props)
    problems: list[ConfigProblem] = []
    providers = _configured_providers(written, plugins, problems)
    try:
        lookups = _look_up(written, providers, problems)
    finally:
        for provider in providers.values():
            provider.close()
    if problems:
        raise ConfigError(problems)
    values, replaced = {}, {}
    for key, value in written.items():
        values[key] = _replace(key, value, lookups, replaced, configured=set(providers))
    return ResolvedProperties(values, written, replaced)


def _configured_providers(props: dict[str, Any], plugins: Any, problems: list[ConfigProblem]) -> dict[str, Any]:
    names = [n.strip() for n in str(props.get(PROVIDERS_KEY, "")).split(",") if n.strip()]
    if not names:
        return {}
    if plugins is None:
        from smt.plugins import default_plugins

        plugins = default_plugins()
    providers = {}
    for name in names:
        class_key = f"{PROVIDERS_KEY}.{name}.class"
        class_name = str(props.get(class_key, "")).strip()
        if not class_name:
            problems.append(ConfigProblem(class_key, f"is required: {PROVIDERS_KEY} names '{name}'"))
            continue
        try:
            cls = plugins.get("config_provider", class_name)
        except KeyError as exc:
            problems.append(ConfigProblem(class_key, f"Could not load config provider class: {exc}", class_name))
            continue
        prefix = f"{PROVIDERS_KEY}.{name}.param."
        params = {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix) and len(k) > len(prefix)}
        provider = cls()
        try:
            provider.configure(params, PluginContext(alias=name, prefix=prefix, plugins=plugins))
        except ConfigError as exc:
            problems.extend(exc.problems)
            continue
        providers[name] = provider
    return providers


def _look_up(props: dict[str, Any], providers: dict[str, Any], problems: list[ConfigProblem]) -> dict:
    """(provider, path) -> the values it has for the keys the file asks of it."""
    wanted: dict[tuple[str, str], set[str]] = {}
    asked_by: dict[tuple[str, str], str] = {}
    for key, value in props.items():
        for match in VARIABLE_PATTERN.finditer(str(value)):
            variable = _Variable.of(match)
            if variable.provider in providers:
                wanted.setdefault((variable.provider, variable.path), set()).add(variable.key)
                asked_by.setdefault((variable.provider, variable.path), key)
    lookups = {}
    for (name, path), keys in wanted.items():
        try:
            lookups[name, path] = providers[name].get(path, frozenset(keys))
        except ConfigError as exc:
            reason = "; ".join(p.reason for p in exc.problems)
            problems.append(ConfigProblem(asked_by[name, path], f"config provider '{name}': {reason}"))
    return lookups


def _replace(key: str, value: Any, lookups: dict, replaced: dict[str, str], configured: set[str]) -> Any:
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match) -> str:
        variable = _Variable.of(match)
        found = lookups.get((variable.provider, variable.path), {}).get(variable.key)
        if found is None:
            _warn_unresolved(key, variable, configured)
            return variable.text
        replaced[variable.text] = found
        return found

    return VARIABLE_PATTERN.sub(substitute, value)


def _warn_unresolved(key: str, variable: _Variable, configured: set[str]) -> None:
    if variable.provider not in configured:
        why = f"no config provider '{variable.provider}' is configured ({PROVIDERS_KEY})"
    else:
        where = f" at '{variable.path}'" if variable.path else ""
        why = f"config provider '{variable.provider}' has no '{variable.key}'{where}"
    log.warning("%s: %s stays as written: %s", key, variable.text, why)
