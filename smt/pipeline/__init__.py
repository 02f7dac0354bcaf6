"""Pipelines: a source, converters, a transform chain and a sink, run on Spark."""

from smt.pipeline.processor import BatchCounts, BatchProcessor
from smt.pipeline.runner import PipelineFailed, PipelineResult, build_spark_session, run_pipeline
from smt.pipeline.spec import PIPELINE_CONFIG, PipelineSpec

__all__ = [
    "BatchCounts",
    "BatchProcessor",
    "PIPELINE_CONFIG",
    "PipelineFailed",
    "PipelineResult",
    "PipelineSpec",
    "build_spark_session",
    "run_pipeline",
]
