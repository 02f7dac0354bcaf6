"""Building chain stages from properties, reporting every problem at once."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from smt.chain_stage import ChainStage
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, parse_value
from smt.errors import ConfigError, ConfigProblem, SmtError
from smt.plugin import PluginContext

# The chain's own keys, declared for the reference and the review of unread
# keys; the builder below reads them one by one, to report every problem with
# its alias.

#: The lists of aliases that make the chain.
CHAIN_LISTS_CONFIG = (
    ConfigDef()
    .define(
        "transforms",
        ConfigType.LIST,
        [],
        None,
        Importance.HIGH,
        "Aliases of the transforms, in the order they apply; the keys of each go under its alias.",
    )
    .define(
        "predicates",
        ConfigType.LIST,
        [],
        None,
        Importance.MEDIUM,
        "Aliases of the predicates that transforms may name; the keys of each go under its alias.",
    )
)

#: Keys under ``transforms.<alias>.`` that belong to the chain, not the transform.
STAGE_CONFIG = (
    ConfigDef()
    .define(
        "type",
        ConfigType.CLASS,
        REQUIRED,
        None,
        Importance.HIGH,
        "The transform: a short name (Cast$Value) or a Kafka Connect class name.",
    )
    .define(
        "predicate",
        ConfigType.STRING,
        "",
        None,
        Importance.MEDIUM,
        "Alias of a predicate listed in predicates: the transform applies only to the records it matches.",
    )
    .define(
        "negate",
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Apply the transform to the records the predicate does not match instead (needs predicate).",
    )
)

#: Keys under ``predicates.<alias>.`` that belong to the chain, not the predicate.
PREDICATE_STAGE_CONFIG = ConfigDef().define(
    "type", ConfigType.CLASS, REQUIRED, None, Importance.HIGH,
    "The predicate: a short name (TopicNameMatches) or a Kafka Connect class name.",
)  # fmt: skip

_STAGE_KEYS = tuple(key.name for key in STAGE_CONFIG.keys)


def aliases(props: Mapping[str, Any], list_key: str, problems: list[ConfigProblem]) -> list[str]:
    """The aliases listed under ``list_key`` (``transforms`` or ``predicates``)."""
    names = parse_value(ConfigType.LIST, props.get(list_key, "")) or []
    seen: set[str] = set()
    result = []
    for name in names:
        if not name:
            problems.append(ConfigProblem(list_key, "contains an empty alias", props.get(list_key)))
        elif name in seen:
            problems.append(ConfigProblem(list_key, f"duplicate alias '{name}'", props.get(list_key)))
        else:
            seen.add(name)
            result.append(name)
    return result


def sub_configs(props: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The keys under ``prefix``, with the prefix stripped."""
    return {key[len(prefix) :]: value for key, value in props.items() if key.startswith(prefix)}


def configs_by_alias(
    props: Mapping[str, Any], list_key: str, names: Iterable[str]
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Each alias's keys (``<list_key>.<alias>.X`` as ``X``), and the keys under ``list_key.`` of no alias.

    One pass over the keys, whatever the number of aliases (a chain of 10,000
    stages has 30,000 keys).  An alias may hold dots and be a prefix of
    another (``a`` and ``a.b``): a key belongs to the longest alias it starts with.
    """
    own: dict[str, dict[str, Any]] = {name: {} for name in names}
    strays: list[str] = []
    head = list_key + "."
    for key, value in props.items():
        if not key.startswith(head):
            continue
        rest = key[len(head) :]
        alias = _longest_alias(rest, own)
        if alias is None:
            strays.append(key)
        else:
            own[alias][rest[len(alias) + 1 :]] = value
    return own, strays


def _longest_alias(rest: str, aliases: Mapping[str, Any]) -> str | None:
    dot = rest.rfind(".")
    while dot > 0:
        if rest[:dot] in aliases:
            return rest[:dot]
        dot = rest.rfind(".", 0, dot)
    return None


def build_stages(props: Mapping[str, Any], *, plugins: Any = None) -> list[ChainStage]:
    """Configured stages for ``transforms=...``; raises :class:`ConfigError` with every problem."""
    if plugins is None:
        from smt.plugins import default_plugins

        plugins = default_plugins()
    problems: list[ConfigProblem] = []
    predicates = _build_predicates(props, plugins, problems)
    stages = []
    configs, _ = configs_by_alias(props, "transforms", aliases(props, "transforms", problems))
    for alias, own in configs.items():
        stage = _build_stage(alias, own, plugins, predicates, problems)
        if stage is not None:
            stages.append(stage)
    if problems:
        raise ConfigError(problems)
    return stages


def _build_stage(alias, configs, plugins, predicates, problems) -> ChainStage | None:
    prefix = f"transforms.{alias}."
    transform = _instantiate("transform", alias, prefix, configs, plugins, problems)
    predicate_alias = str(configs.get("predicate", "")).strip()
    predicate = None
    if predicate_alias:
        predicate = predicates.get(predicate_alias)
        if predicate is None and predicate_alias not in predicates:
            problems.append(
                ConfigProblem(
                    prefix + "predicate",
                    f"unknown predicate alias '{predicate_alias}' (not listed in 'predicates')",
                    predicate_alias,
                )
            )
    negate = False
    if "negate" in configs:
        try:
            negate = parse_value(ConfigType.BOOLEAN, configs["negate"])
        except ValueError as exc:
            problems.append(ConfigProblem(prefix + "negate", str(exc), configs["negate"]))
        if not predicate_alias:
            problems.append(ConfigProblem(prefix + "negate", f"is set but {prefix}predicate is not", configs["negate"]))
    if transform is None:
        return None
    return ChainStage(alias, transform, predicate, bool(negate))


def _build_predicates(props, plugins, problems) -> dict[str, Any]:
    predicates: dict[str, Any] = {}
    configs, _ = configs_by_alias(props, "predicates", aliases(props, "predicates", problems))
    for alias, own in configs.items():
        # A predicate that fails to build is recorded as None so that stages
        # naming it do not also report it as unknown.
        predicates[alias] = _instantiate("predicate", alias, f"predicates.{alias}.", own, plugins, problems)
    return predicates


def _instantiate(kind, alias, prefix, configs, plugins, problems):
    type_name = str(configs.get("type", "")).strip()
    if not type_name:
        problems.append(ConfigProblem(prefix + "type", "is required and has no default"))
        return None
    try:
        cls = plugins.get(kind, type_name)
    except KeyError as exc:
        problems.append(ConfigProblem(prefix + "type", exc.args[0], type_name))
        return None
    own = {k: v for k, v in configs.items() if k not in _STAGE_KEYS}
    plugin = cls()
    try:
        plugin.configure(own, PluginContext(alias=alias, prefix=prefix, plugins=plugins))
    except ConfigError as exc:
        problems.extend(exc.problems)
        return None
    except SmtError as exc:
        problems.append(ConfigProblem(prefix.rstrip("."), str(exc), type_name))
        return None
    return plugin
