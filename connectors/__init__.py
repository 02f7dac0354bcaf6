"""Spark-based source and sink connectors."""

from connectors.base import Sink, Source

__all__ = ["Source", "Sink"]
