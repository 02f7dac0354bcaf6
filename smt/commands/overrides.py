"""``--set KEY=VALUE`` and ``--unset KEY``: a pipeline file's keys changed for one command.

``--unset`` removes a key the file sets (``--set sink=console --unset
sink.path`` turns a file sink into the console); ``--set`` then replaces or
adds keys.  Both apply before config providers resolve variables, so a value
set this way may itself be a ``${provider:...}`` variable; the last ``--set``
of a key wins.

A shell expands ``$Value`` in an unquoted (or double-quoted) argument to
nothing, so ``--set transforms.m.type=MaskField$Value`` arrives as
``MaskField``: a problem with such a value gets a hint to single-quote it.
"""

from __future__ import annotations

import argparse
from typing import Any, Mapping

from smt.errors import ConfigError, ConfigProblem

__all__ = ["add_override_options", "load_spec", "with_quoting_hints"]

_PLUGIN_KINDS = ("transform", "predicate")


def add_override_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", action="append", dest="overrides", type=_key_value, default=[],
                        metavar="KEY=VALUE", help="override KEY of the file (repeatable; applied before "
                        "${provider:...} variables are resolved; quote a value holding $: 'KEY=A$Value')")  # fmt: skip
    parser.add_argument("--unset", action="append", dest="unset", default=[], metavar="KEY",
                        help="remove KEY of the file (repeatable; before --set: --set sink=console --unset "
                        "sink.path)")  # fmt: skip


def _key_value(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got '{text}'")
    return key.strip(), value


def load_spec(args: argparse.Namespace, **options: Any) -> Any:
    """The :class:`PipelineSpec` of ``args.pipeline`` with its ``--set``/``--unset`` applied.

    Raises :class:`ConfigError` as :meth:`PipelineSpec.from_properties`, with
    :func:`with_quoting_hints` added.
    """
    from smt.pipeline import PipelineSpec

    overrides = dict(args.overrides)
    try:
        return PipelineSpec.from_properties(args.pipeline, overrides=overrides, unset=args.unset, **options)
    except ConfigError as exc:
        raise with_quoting_hints(exc, overrides) from None


def with_quoting_hints(error: ConfigError, overrides: Mapping[str, str], plugins: Any = None) -> ConfigError:
    """``error`` with a quoting hint on each problem whose ``--set`` value lost a ``$Variant`` to the shell."""
    if plugins is None:
        from smt.plugins import default_plugins

        plugins = default_plugins()
    problems = []
    for problem in error.problems:
        value = overrides.get(problem.key, "").strip()
        variants = [v for kind in _PLUGIN_KINDS for v in plugins.variants(kind, value)] if value else []
        if variants:
            suffix = variants[-1][len(value) :]
            problem = ConfigProblem(
                problem.key,
                f"{problem.reason}; if --set gave '{value}{suffix}', the shell took '{suffix}' from it: "
                f"quote it in single quotes, --set '{problem.key}={value}{suffix}'",
                problem.value,
            )
        problems.append(problem)
    hinted = ConfigError(problems)
    hinted.notices = error.notices
    return hinted
