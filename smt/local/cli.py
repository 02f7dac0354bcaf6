"""``smt local ...``: local services for development and tests.

``smt local kafka start|stop|status`` manages the single-node broker of
:mod:`smt.local.kafka`; ``start`` and ``status`` print the bootstrap servers
(``host:port``) as their last line, so scripts can take ``| tail -n1``.
``start --listener SASL_PLAINTEXT --user alice:secret`` opens secured
listeners instead of PLAINTEXT (``--listener`` repeats; the first one's
servers are printed last; the others, and the TLS CA, are printed before).
``smt local kafka topics create|list|delete`` and ``produce|consume`` use
Kafka's own tools on it (:mod:`smt.local.kafka_tools`).  ``smt local fetch``
downloads every Java artifact the project uses (the broker, its tools,
Spark's Kafka connector, Kafka Connect's classes the tests compare with,
Debezium's PostgreSQL connector for ``smt local debezium``, and
the table sink's Delta, Iceberg and PostgreSQL JDBC jars for the installed
Spark) into the cache, for CI or offline work.  ``smt local postgres start``
and ``smt local debezium start --database URL --table public.customers``
start a database with logical decoding and Debezium's connector on the
broker (:mod:`smt.local.postgres`, :mod:`smt.local.debezium`).

Exit codes are the ``smt`` command's (:mod:`smt.commands.output`); ``status``
of a broker that is not running exits 4.
"""

from __future__ import annotations

import argparse
import sys
import time

from smt.commands.output import EXIT_OK
from smt.local import _cdc_commands, _kafka_commands

__all__ = ["add_commands"]


def add_commands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    local = commands.add_parser("local", parents=[common], help="local services for trying things out: a Kafka broker, PostgreSQL, Debezium",
                                description="Local services for development and tests.")  # fmt: skip
    services = local.add_subparsers(dest="service", metavar="SERVICE", required=True)
    _kafka_commands.add_commands(services, common)
    _cdc_commands.add_commands(services, common)
    fetch = services.add_parser(
        "fetch",
        parents=[common],
        help="download the Java artifacts the project uses into the cache, and print the jar paths your own "
        "PySpark session needs for Kafka (spark.jars=...)",
        description="Download the Java artifacts the project uses (the Kafka broker and tools, Spark's Kafka "
        "connector, the table formats' jars, Kafka Connect's classes, Debezium's PostgreSQL connector) into the cache, and print each bundle's "
        "jar count and the cache's folder; --jars prints each bundle's jar paths too, comma-separated, as "
        "spark-submit's --jars and the spark.jars setting of your own Spark jobs take them. Last, the spark.jars= line a user's own PySpark session needs for Kafka.",
    )
    fetch.add_argument("--jars", action="store_true", help="print each bundle's jar paths, comma-separated")
    fetch.set_defaults(handler=_fetch)


def _fetch(args: argparse.Namespace) -> int:
    from connectors.kafka import older_connector_note, spark_jars, spark_kafka_bundle
    from connectors.table import table_bundles
    from smt import maven
    from smt.local.debezium import DEBEZIUM_POSTGRES_BUNDLE
    from smt.local.kafka import BROKER_BUNDLE, CONNECT_BUNDLE
    from smt.local.kafka_tools import TOOLS_BUNDLE

    kafka_connector = spark_kafka_bundle()
    tables, notes = table_bundles()
    for note in notes:
        print(note)
    for bundle in (BROKER_BUNDLE, TOOLS_BUNDLE, kafka_connector, CONNECT_BUNDLE, DEBEZIUM_POSTGRES_BUNDLE, *tables):
        started = time.monotonic()
        jars = maven.resolve(bundle)
        print(f"{bundle.name}: {len(jars)} jars ({time.monotonic() - started:.1f} s)")
        if args.jars:
            print("  " + ",".join(str(jar) for jar in jars))
    print(f"cache: {maven.cache_dir()}")
    # For users' own PySpark code (docs/pyspark.md's Kafka example): the connector's jars Spark does not ship.
    print(f"spark.jars={','.join(spark_jars())}")
    note = older_connector_note(kafka_connector)
    if note is not None:
        print(f"note: {note}", file=sys.stderr)
    return EXIT_OK
