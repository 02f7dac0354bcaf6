"""Kafka and Java errors, as Spark and py4j report them, summed up in one line."""

import pytest

from connectors.kafka._preflight import MissingTopicError, kafka_error_summary, kafka_job_failure, require_topics

SPARK_WRITE_FAILURE = """An error occurred while calling o123.save.
: org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 3.0 failed 1 times, most recent failure: Lost task 0.0 in stage 3.0 (TID 4) (127.0.0.1 executor driver): org.apache.kafka.common.errors.TimeoutException: Topic out not present in metadata after 1500 ms.
Caused by: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.
\tat org.apache.spark.sql.kafka010.KafkaWriteTask.checkForErrors(KafkaWriteTask.scala:92)
"""

ADMIN_TIMEOUT = """An error occurred while calling o77.get.
: java.util.concurrent.TimeoutException
\tat org.apache.kafka.common.internals.KafkaFutureImpl.get(KafkaFutureImpl.java:180)
"""

BAD_OPTION = """An error occurred while calling o50.load.
: java.lang.IllegalArgumentException: Kafka option 'key.deserializer' is not supported as keys are deserialized as byte arrays
\tat org.apache.spark.sql.kafka010.KafkaSourceProvider.validateGeneralOptions(KafkaSourceProvider.scala:160)
"""

READ_TIMEOUT = """An error occurred while calling o88.save.
: org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 0.0 failed 1 times, most recent failure: Lost task 1.0 in stage 0.0 (TID 1) (127.0.0.1 executor driver): org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired before the position for partition in-1 could be determined
\tat org.apache.spark.sql.kafka010.consumer.InternalKafkaConsumer.fetch(KafkaDataConsumer.scala:107)
\tat org.apache.spark.sql.kafka010.consumer.KafkaDataConsumer.get(KafkaDataConsumer.scala:291)
"""

PYTHON_WORKER = """An exception was thrown from the Python worker:
Traceback (most recent call last):
  File "/smt/pipeline/processor.py", line 99, in failed
    raise masked_error(self.policy, error)
smt.errors.StageError: Error in VALUE_CONVERTER stage with JsonConverter on record topic='in' partition=0 offset=1: ConverterError: cannot read JSON
"""


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        (SPARK_WRITE_FAILURE, "TimeoutException: Topic out not present in metadata after 1500 ms. "
                              "(caused by UnknownTopicOrPartitionException: This server does not host this topic-partition.)"),
        (ADMIN_TIMEOUT, "TimeoutException"),
        (BAD_OPTION, "IllegalArgumentException: Kafka option 'key.deserializer' is not supported as keys are "
                     "deserialized as byte arrays"),
        ("something else entirely\nsecond line", "something else entirely"),
        (READ_TIMEOUT, "reading the source topics failed, not writing: TimeoutException: Timeout of 60000ms expired "
                       "before the position for partition in-1 could be determined"),
        (PYTHON_WORKER, "a record failed before it was written (not a Kafka problem): StageError: Error in "
                        "VALUE_CONVERTER stage with JsonConverter on record topic='in' partition=0 offset=1: "
                        "ConverterError: cannot read JSON"),
    ],
)  # fmt: skip
def test_summary_names_the_kafka_exception(text, summary):
    assert kafka_error_summary(RuntimeError(text)) == summary


def test_missing_topics_are_all_named():
    with pytest.raises(MissingTopicError, match=r"^sink: topics 'a', 'c' do not exist on the Kafka cluster at h:1 "):
        require_topics({"a", "b", "c"}, {"b"}, "h:1", "sink")
    require_topics({"b"}, {"b"}, "h:1", "sink")  # nothing missing: no error


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (SPARK_WRITE_FAILURE, "writing to the Kafka cluster at h:1 failed; records written before the failure stay in "
                              "Kafka: TimeoutException: Topic out not present in metadata after 1500 ms."),
        (READ_TIMEOUT, "reading the source topics failed, not writing: TimeoutException: Timeout of 60000ms expired"),
        (PYTHON_WORKER, "a record failed before it was written (not a Kafka problem): StageError: Error in "
                        "VALUE_CONVERTER stage"),
    ],
)  # fmt: skip
def test_a_failed_kafka_job_is_called_a_write_failure_only_when_writing_failed(text, message):
    assert kafka_job_failure(RuntimeError(text), "h:1").startswith(message)
