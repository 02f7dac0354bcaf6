"""Spark-based source and sink connectors."""

from smt.connector import Sink, Source

__all__ = ["Source", "Sink"]
