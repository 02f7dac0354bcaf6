"""The local Spark Connect server: a failed start names its log and leaves nothing running."""

import pytest

from smt.local.spark_connect import SparkConnectServerError


def test_a_server_that_cannot_start_is_reported_with_its_log(tmp_path, connect_servers):
    server = connect_servers(tmp_path, master="no-such-master://x")
    with pytest.raises(
        SparkConnectServerError, match=r"the Spark Connect server exited with code \d+; see .*spark-connect\.log"
    ):
        server.start(timeout_s=300)
    assert "Master must" in server.log_file.read_text(errors="replace")  # Spark's own words, in the log
    server.stop()  # nothing left to stop: no error
