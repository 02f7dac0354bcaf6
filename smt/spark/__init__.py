"""Apply a transform chain to your own DataFrame, on a classic or a Spark Connect session.

::

    from smt.spark import transform

    result = transform(df, "chain.properties")   # or a dict of the same keys
    result.records        # the transformed records
    result.dead_letters   # the input records that failed, with error_stage/class/exception/message
    result.metrics()      # counts per pipeline and per transform, once an action has run

Or, DataFrame-method style: ``df.transform(chain("chain.properties"))``
returns the records; the chain object keeps the last result (``.result``)
for its dead letters and metrics.

``df`` is any DataFrame, batch or streaming, with a ``value`` column (string
or binary); the other Kafka row fields (``key``, ``topic``, ``partition``,
``offset``, ``timestamp``, ``timestampType``, ``headers``) are used when
present, and every other column travels with its record.  The configuration
is a pipeline file's chain: ``transforms``, ``predicates``, the converters,
``errors.*`` and ``name``; ``source``/``sink`` keys and the like are refused.
"""

from __future__ import annotations

import os
import uuid
from typing import Any, Mapping

from smt.spark._config import ChainConfig
from smt.spark._result import TransformResult

__all__ = ["Chain", "TransformResult", "chain", "transform"]


def transform(df: Any, config: str | os.PathLike | Mapping[str, Any]) -> TransformResult:
    """Apply the chain of ``config`` (a ``.properties`` file or a mapping) to ``df``.

    Nothing runs until an action on the result's DataFrames.  Raises
    :class:`smt.errors.ConfigError` at once, listing every problem of the
    configuration or of ``df``'s columns, each naming its key or column.  A
    record that fails with ``errors.tolerance=none`` (the default) fails the
    Spark action, naming the stage, the transform and the record.
    """
    return _apply(df, ChainConfig.load(config))


def chain(config: str | os.PathLike | Mapping[str, Any]) -> "Chain":
    """The chain of ``config`` as a function of a DataFrame, for ``df.transform(chain(...))``.

    Raises :class:`smt.errors.ConfigError` at once for a bad configuration.
    """
    return Chain(ChainConfig.load(config))


class Chain:
    """A configured chain, callable on DataFrames: returns the records.

    ``result`` is the :class:`TransformResult` of the last call: its
    ``dead_letters`` and ``metrics()``.
    """

    def __init__(self, config: ChainConfig) -> None:
        self.config = config
        self.result: TransformResult | None = None

    def __call__(self, df: Any) -> Any:
        self.result = _apply(df, self.config)
        return self.result.records


def _apply(df: Any, config: ChainConfig) -> TransformResult:
    from pyspark.sql import Observation

    from smt.pipeline.counts import CountsLayout
    from smt.pipeline.runner import transform_dataframe
    from smt.spark._input import cast_fields, kafka_rows

    rows = kafka_rows(df)
    input_types = cast_fields(df)
    _prepare_session(df.sparkSession)
    layout = CountsLayout(config.aliases)
    out = transform_dataframe(rows, config.processor(), layout)
    name = f"smt-{uuid.uuid4().hex[:12]}"
    if df.isStreaming:  # an Observation takes batch DataFrames only; progress reports carry streaming ones
        return TransformResult(out.observe(name, *layout.sums()), layout, None, name, input_types)
    observation = Observation(name)
    return TransformResult(out.observe(observation, *layout.sums()), layout, observation, name, input_types)


def _prepare_session(session: Any) -> None:
    """Make the project's code importable where the session runs Python (once per session).

    A local classic session's workers run this interpreter (unless the user
    chose one), so they share its packages.
    """
    from smt.pipeline.cluster import is_local_master, ship_project_code, use_local_worker_python
    from smt.sessions import is_connect

    if getattr(session, "_smt_code_shipped", False):
        return
    if is_connect(session) or not is_local_master(session.sparkContext.master):
        ship_project_code(session)
    else:
        use_local_worker_python(session)
    try:
        session._smt_code_shipped = True
    except AttributeError:  # a session that takes no attributes ships again next time
        pass
