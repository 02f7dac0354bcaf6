"""Variants of a case that Kafka runs too, so that a deviation can be checked against Kafka itself.

A deviation that says "we do what Kafka does for another configuration or
another record" is checked by running that other configuration or record
through Kafka (in the same batch as the case) and comparing ours with it:

- ``without:<aliases>``: the chain without that MaskField/HeaderFrom stage,
  or without all of them (``tombstone-pass-through``: the record passes
  those stages unchanged);
- ``canonical:<alias>`` and ``ignored:<alias>``: ReplaceField's
  ``blacklist``/``whitelist`` renamed to ``exclude``/``include``, and dropped
  (``deprecated-replace-field-names``);
- ``no-transforms``: the records through the converters alone
  (``header-bytes-pass-through``: what Kafka writes for a header no transform
  touched);
- ``schemaless-null``: the String/ByteArray key and value converters replaced
  by JsonConverter without schemas, which reads a null as we read it, with no
  schema (``string-and-bytes-read-schemaless`` in a pipeline);
- ``winners#<n>``: for a ReplaceField whose renames can collide (two onto one
  name, or one onto a name no rename moves away), each record with all but
  one of each colliding group of fields removed, once per choice, under the
  renames of the fields it still has (``rename-collisions``: Kafka's result
  for one visiting order).
"""

from __future__ import annotations

import base64
import itertools
import json
from typing import Any

__all__ = ["WINNERS", "twins"]

WINNERS = "winners"
_DEPRECATED = (("blacklist", "exclude"), ("whitelist", "include"))
_PASS_TOMBSTONES = ("MaskField", "HeaderFrom")
_JSON = "org.apache.kafka.connect.json.JsonConverter"
#: The converters that read without a schema here (string-and-bytes-read-schemaless).
_READ_SCHEMALESS = ("StringConverter", "ByteArrayConverter")


def stages(config: dict) -> list[tuple[str, str]]:
    """(alias, Kafka class name without the package) of each stage of a pipeline configuration."""
    aliases = [a.strip() for a in config.get("transforms", "").split(",") if a.strip()]
    return [(a, config.get(f"transforms.{a}.type", "").rsplit(".", 1)[-1]) for a in aliases]


def _without_stages(config: dict, aliases: list[str]) -> dict:
    kept = {k: v for k, v in config.items() if not any(k.startswith(f"transforms.{a}.") for a in aliases)}
    kept["transforms"] = ",".join(a for a, _ in stages(config) if a not in aliases)
    return kept


def canonical_replace_field(config: dict, alias: str) -> dict:
    """``config`` with the stage's ``blacklist``/``whitelist`` read as ``exclude``/``include``
    (which win when both are set, as in Kafka 3.x)."""
    out = dict(config)
    for old, new in _DEPRECATED:
        value = out.pop(f"transforms.{alias}.{old}", None)
        if value is not None and f"transforms.{alias}.{new}" not in out:
            out[f"transforms.{alias}.{new}"] = value
    return out


def deprecated_names(config: dict, alias: str) -> bool:
    return any(
        f"transforms.{alias}.{old}" in config and f"transforms.{alias}.{new}" not in config for old, new in _DEPRECATED
    )


def twins(case: dict) -> dict[str, dict]:
    """The variants of pipeline ``case`` that its deviations are checked against, by name."""
    if case["kind"] != "pipeline":
        return {}
    config = case["config"]
    found: dict[str, dict] = {}
    if any(value is not None for record in case["records"] for _, value in record["headers"]):
        found["no-transforms"] = {**case, "config": _without_stages(config, [a for a, _ in stages(config)])}
    passing = [alias for alias, kind in stages(config) if kind.split("$")[0] in _PASS_TOMBSTONES]
    for alias in passing:
        found[f"without:{alias}"] = {**case, "config": _without_stages(config, [alias])}
    if len(passing) > 1:
        found["without:" + ",".join(passing)] = {**case, "config": _without_stages(config, passing)}
    for alias, kind in stages(config):
        family = kind.split("$")[0]
        if family == "ReplaceField" and deprecated_names(config, alias):
            found[f"canonical:{alias}"] = {**case, "config": canonical_replace_field(config, alias)}
            ignored = {k: v for k, v in config.items() if k not in _deprecated_keys(alias)}
            found[f"ignored:{alias}"] = {**case, "config": ignored}
    schemaless = {
        f"{part}.converter": _JSON
        for part in ("key", "value")
        if config.get(f"{part}.converter", "").rsplit(".", 1)[-1] in _READ_SCHEMALESS
        and any(record[part] is None for record in case["records"])
    }
    if schemaless:
        others = {k: v for k, v in config.items() if not any(k.startswith(c + ".") for c in schemaless)}
        found["schemaless-null"] = {
            **case,
            "config": {**others, **schemaless, **{c + ".schemas.enable": "false" for c in schemaless}},
        }
    first = stages(config)[:1]
    if first and first[0][1].startswith("ReplaceField") and f"transforms.{first[0][0]}.predicate" not in config:
        for number, variant in enumerate(_collision_variants(case, first[0][0])):
            found[f"{WINNERS}#{number}"] = variant
    return found


def _deprecated_keys(alias: str) -> set[str]:
    return {f"transforms.{alias}.{old}" for old, _ in _DEPRECATED}


def _collision_variants(case: dict, alias: str) -> list[dict]:
    """Single-record cases, one per (record, choice of one field per colliding group): the record
    with the other fields of each group removed, under the renames of the fields it has; none
    when the renames cannot collide."""
    config = canonical_replace_field(case["config"], alias)
    prefix = f"transforms.{alias}."
    part = "key" if config[prefix + "type"].endswith("$Key") else "value"
    mappings = [m.split(":", 1) for m in _listed(config.get(prefix + "renames")) if ":" in m]
    renames = dict(mappings)
    exclude, include = set(_listed(config.get(prefix + "exclude"))), set(_listed(config.get(prefix + "include")))
    variants = []
    targets = [new for _, new in mappings]
    if len(set(targets)) == len(targets) and all(target in renames for target in targets):
        return []
    for index, record in enumerate(case["records"]):
        document = _document(record[part])
        payload = document.get("payload") if _is_envelope(document) else document
        if not isinstance(payload, dict):
            continue
        kept = [name for name in payload if name not in exclude and (not include or name in include)]
        groups: dict[str, list[str]] = {}
        for name in kept:
            groups.setdefault(renames.get(name, name), []).append(name)
        colliding = [members for members in groups.values() if len(members) > 1]
        for winners in itertools.product(*colliding):
            losers = {name for members in colliding for name in members} - set(winners)
            applying = ",".join(f"{old}:{new}" for old, new in renames.items() if old in kept and old not in losers)
            variant_config = {k: v for k, v in config.items() if k != prefix + "renames"}
            if applying:
                variant_config[prefix + "renames"] = applying
            variants.append(
                {
                    **case,
                    "config": variant_config,
                    "records": [{**record, part: _without_fields(document, losers)}],
                    "variant_of": [index],
                }
            )
    return variants


def _listed(text: str | None) -> list[str]:
    return [x.strip() for x in (text or "").split(",") if x.strip()]


def _document(data: str | None) -> Any:
    if data is None:
        return None
    try:
        return json.loads(base64.b64decode(data))
    except ValueError:
        return None


def _is_envelope(document: Any) -> bool:
    return isinstance(document, dict) and document.keys() == {"schema", "payload"}


def _without_fields(document: Any, names: set[str]) -> str:
    if _is_envelope(document) and isinstance(document["schema"], dict):
        schema = dict(document["schema"])
        schema["fields"] = [f for f in schema.get("fields", []) if f["field"] not in names]
        payload = {k: v for k, v in document["payload"].items() if k not in names}
        document = {"schema": schema, "payload": payload}
    elif _is_envelope(document):
        document = {**document, "payload": {k: v for k, v in document["payload"].items() if k not in names}}
    else:
        document = {k: v for k, v in document.items() if k not in names}
    return base64.b64encode(json.dumps(document).encode()).decode()
