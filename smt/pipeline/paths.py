"""Where a pipeline reads and writes on disk, settled on the driver before Spark starts.

- :func:`resolve_paths`: the relative values of the keys the plugins declare
  as paths (:attr:`smt.config.ConfigType.PATH`) become absolute against the
  pipeline file's folder.  Only declared keys: ``transforms.X.path=reference``
  or a guest's ``transforms.X.config.location=EU`` stay as written.
- :func:`overlap_problems`: a run must never write over its own input.  Spark
  empties a folder it overwrites before it reads the input, so a sink or
  dead-letter folder that is, contains or lies inside a source path would
  delete the input (and a sink folder holding the pipeline file, the file).
  Such paths are refused, naming both keys, compared as the file system
  sees them: symlinks and ``..`` resolved.
"""

from __future__ import annotations

import glob
import os
from typing import Any, Iterator, Mapping

from smt._chain_builder import aliases
from smt.config import ConfigDef
from smt.errors import ConfigProblem

__all__ = ["overlap_problems", "resolve_paths"]


def resolve_paths(props: Mapping[str, Any], base_dir: str, top_level: ConfigDef, plugins: Any) -> dict[str, Any]:
    """``props`` with every declared path key made absolute against ``base_dir``.

    ``top_level`` declares the pipeline's own keys; the plugins named in
    ``props`` declare theirs.  A plugin that cannot be found is skipped here
    (building the pipeline reports it).
    """
    resolved = top_level.resolve_paths(props, base_dir)
    for prefix, config_def in _plugin_config_defs(props, top_level, plugins):
        resolved.update(config_def.path_updates(resolved, base_dir, prefix))  # one copy, not one per plugin
    return resolved


def _plugin_config_defs(
    props: Mapping[str, Any], top_level: ConfigDef, plugins: Any
) -> Iterator[tuple[str, ConfigDef]]:
    """``(key prefix, ConfigDef)`` of every plugin the properties configure."""
    defaults = {key.name: key.default for key in top_level.keys}

    def named(key: str) -> str:
        return str(props.get(key, defaults.get(key)) or "").strip()

    wanted = [(kind, f"{kind}.", named(kind)) for kind in ("source", "sink")]
    wanted += [("converter", f"{key}.", named(key)) for key in ("key.converter", "value.converter", "header.converter")]
    for kind, list_key in (("transform", "transforms"), ("predicate", "predicates")):
        for alias in aliases(props, list_key, []):
            wanted.append((kind, f"{list_key}.{alias}.", str(props.get(f"{list_key}.{alias}.type", "")).strip()))
    if named("errors.deadletterqueue.topic.name"):
        wanted.append(("sink", "errors.deadletterqueue.", "kafka"))
    for kind, prefix, name in wanted:
        try:
            config_def = getattr(plugins.get(kind, name), "config_def", None) if name else None
        except KeyError:
            continue
        if isinstance(config_def, ConfigDef):
            yield prefix, config_def


def overlap_problems(
    inputs: Mapping[str, str],
    outputs: Mapping[str, str],
    dead_letters: Mapping[str, str],
    pipeline_file: str | None = None,
) -> list[ConfigProblem]:
    """Problems for every output that would write over an input; each argument maps key -> path.

    Outputs (sinks) and dead letters must not be, contain or lie inside an
    input; dead letters must not be or lie inside an output; an output must
    not contain the pipeline file.
    """
    problems = []
    for key, path in {**outputs, **dead_letters}.items():
        for input_key, input_path in inputs.items():
            relation = _relation(path, input_path)
            if relation:
                problems.append(
                    ConfigProblem(
                        key,
                        f"'{path}' {relation} {input_key} '{input_path}': writing there "
                        "would overwrite or delete the input; choose another folder",
                        path,
                    )
                )
    for key, path in dead_letters.items():
        for output_key, output_path in outputs.items():
            relation = _relation(path, output_path)
            if relation and relation != "contains":  # a sink folder inside the dead letters' deletes none
                problems.append(
                    ConfigProblem(
                        key,
                        f"'{path}' {relation} {output_key} '{output_path}': the sink's "
                        "write would delete the dead letters; choose another folder",
                        path,
                    )
                )
    if pipeline_file:
        for key, path in outputs.items():
            if _relation(path, pipeline_file) == "contains":
                problems.append(
                    ConfigProblem(
                        key,
                        f"'{path}' contains the pipeline file '{pipeline_file}': "
                        "writing there could delete it; choose another folder",
                        path,
                    )
                )
    return problems


def _relation(written: str, read: str) -> str:
    """How the folder ``written`` stands to the path ``read``: ``is``, ``contains``, ``lies inside`` or ``''``."""
    pattern = _is_pattern(read)
    written, read = _canonical(written), _canonical(read)
    if written is None or read is None or written[0] != read[0]:
        return ""
    if written == read:
        return "contains" if pattern else "is the same path as"
    if _inside(read[1], written[1]):
        return "contains"
    if _inside(written[1], read[1]):
        return "lies inside"
    return ""


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/") + "/")


def _canonical(path: str) -> tuple[str, str] | None:
    """``(scheme, path)`` as the file system sees it; a glob stands for the folder it searches."""
    text = path.strip()
    if not text:
        return None
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "file", text
    elif scheme == "file":
        rest = rest if rest.startswith("/") else "/" + rest
    if _is_pattern(rest):
        rest = _fixed_prefix(rest)
    if scheme != "file":
        return scheme, os.path.normpath("/" + rest.lstrip("/")) if rest else "/"
    return scheme, os.path.realpath(rest)


def _is_pattern(path: str) -> bool:
    return glob.has_magic(path) or "{" in path  # Hadoop globs also take {a,b}


def _fixed_prefix(pattern: str) -> str:
    """The folders of a glob pattern before its first wildcard."""
    fixed = []
    for part in pattern.split("/"):
        if _is_pattern(part):
            break
        fixed.append(part)
    return "/".join(fixed) or "/"
