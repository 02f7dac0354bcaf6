"""A chain's configuration for :func:`smt.spark.transform`: a pipeline file without its source and sink.

The keys are those of a pipeline file that say what happens to a record:
``transforms`` and ``predicates``, the converters, ``errors.*`` and ``name``
(the connector name in dead-letter context headers).  Keys that say where
records come from or go to, or how Spark runs, are refused, each named: the
DataFrame is the source, the caller writes the results, and the session is
the caller's.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping

from smt.errors import ConfigError, ConfigProblem
from smt.pipeline.processor import BatchProcessor

__all__ = ["ChainConfig"]

#: Refused key (or key prefix, ending with '.') → why.
_REFUSED = {
    "source": "the DataFrame given to transform() is the source",
    "source.": "the DataFrame given to transform() is the source",
    "sink": "transform() returns DataFrames; write result.records where you like",
    "sink.": "transform() returns DataFrames; write result.records where you like",
    "mode": "a streaming DataFrame gives a streaming result, a batch DataFrame a batch one",
    "checkpoint.location": "the streaming query you start on the result owns its checkpoint",
    "streaming.": "the streaming query you start on the result decides its triggers",
    "spark.": "the DataFrame's own session runs the chain; configure it there",
    "errors.deadletterqueue.topic.name": "dead letters come back as result.dead_letters; write them where you like",
    "errors.deadletterqueue.path": "dead letters come back as result.dead_letters; write them where you like",
    "errors.deadletterqueue.kafka.": "dead letters come back as result.dead_letters; write them where you like",
}


@dataclasses.dataclass(frozen=True)
class ChainConfig:
    """The chain, converters and error policy of a configuration, built and validated on the driver."""

    spec: Any

    @classmethod
    def load(cls, config: str | os.PathLike | Mapping[str, Any]) -> "ChainConfig":
        """Parse a ``.properties`` file or a mapping of the same keys.

        Raises :class:`smt.errors.ConfigError` listing every problem (refused
        keys included), each naming its key; relative paths (a Wasm module's
        ``module.path``) resolve against the file's folder, or the current
        directory for a mapping.
        """
        from smt.pipeline.spec import PipelineSpec, resolve_paths

        if isinstance(config, Mapping):
            props, base_dir = {str(k): v for k, v in config.items()}, os.getcwd()
        else:
            from smt.properties import load_properties

            props = load_properties(config)
            base_dir = os.path.dirname(os.path.abspath(os.fspath(config)))
        refused = [
            ConfigProblem(key, f"not a transform() setting: {reason}", props[key])
            for key in sorted(props)
            if (reason := _refusal(key)) is not None
        ]
        if refused:
            raise ConfigError(refused)
        # No source and no sink: the builder leaves a connector without a name unbuilt.
        spec = PipelineSpec.from_properties({**resolve_paths(props, base_dir), "source": "", "sink": ""})
        return cls(spec)

    def processor(self) -> BatchProcessor:
        """The batch processor: failed records come back as dead-letter rows with their error columns."""
        spec = self.spec
        return BatchProcessor(
            spec.chain,
            spec.key_converter,
            spec.value_converter,
            spec.header_converter,
            spec.policy,
            source_class="smt.spark.transform",
            dead_letter_rows=spec.policy.tolerates_all,
            error_columns=True,
        )

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(stage.alias for stage in self.spec.chain.stages)


def _refusal(key: str) -> str | None:
    for refused, reason in _REFUSED.items():
        if key == refused or (refused.endswith(".") and key.startswith(refused)):
            return reason
    return None
