"""One stage of a transform chain: a configured transform with its optional predicate.

:mod:`smt.chain` applies stages; :mod:`smt._chain_builder` builds them from
properties.  The stage sits below both, so that the chain can build itself
(``TransformChain.from_properties``) without the builder importing the chain.
"""

from __future__ import annotations

import dataclasses

from smt.batch import RecordBatch
from smt.transform import Predicate, Transform

__all__ = ["ChainStage"]


@dataclasses.dataclass
class ChainStage:
    """One configured transform, with its optional predicate."""

    alias: str
    transform: Transform
    predicate: Predicate | None = None
    negate: bool = False

    def mask(self, batch: RecordBatch) -> list[bool] | None:
        """Which rows the stage applies to; ``None`` means every row."""
        if self.predicate is None:
            return None
        tested = self.predicate.test_batch(batch)
        if self.negate:
            return [not t for t in tested]
        return [bool(t) for t in tested]

    @property
    def class_name(self) -> str:
        return type(self.transform).class_name()
