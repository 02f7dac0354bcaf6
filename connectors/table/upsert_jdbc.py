"""Upsert and delete by key into a PostgreSQL table over JDBC, in one transaction.

Spark's JDBC writer has no upsert, so the rows of one write (deduplicated by
key, each with its delete flag) go first into a staging table, written by
Spark's executors in parallel.  Then the driver, through the JDBC driver in
Spark's JVM (py4j), runs in one transaction:

- when the table is missing, ``CREATE TABLE`` with the staging table's columns
  and the key columns as its primary key; when it lacks a column of the
  staging table (``schema.evolution=add_columns``, which the sink checked),
  ``ALTER TABLE ... ADD COLUMN`` with the type Spark gave it there;
- ``DELETE`` the rows whose key a tombstone holds;
- with unavailable (toasted) columns, fill the staging rows' unavailable
  values from the stored rows (see :mod:`connectors.table.cdc`);
- ``INSERT ... SELECT ... ON CONFLICT (keys) DO UPDATE``: the other rows
  replace those with their key, or are added.

and drops the staging table.  The ``ON CONFLICT`` needs a unique index on the
key columns: a table the sink creates has its primary key; a table created
before needs one.  The driver, not only the executors, must reach the
database; a Spark Connect session has no JVM to run the statements and is
refused.
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

from connectors.table.cdc import UNAVAILABLE_COLUMN, fill_unavailable_pg
from connectors.table.writer import TableWriteError
from smt.sessions import is_connect

__all__ = ["claim_topic_table", "jdbc_columns", "jdbc_tables", "upsert_jdbc", "upsert_jdbc_problem", "with_jdbc_driver"]

#: The only database whose upsert statement the sink speaks.
_POSTGRESQL_URL = "jdbc:postgresql:"
_POSTGRESQL_DRIVER = "org.postgresql.Driver"
#: The driver class of each database's JDBC URL (``jdbc:<subprotocol>:``), as each driver documents it:
#: Spark finds a driver loaded from spark.jars only when named, so the sink names it when the file does not.
_DRIVERS = {
    "postgresql": _POSTGRESQL_DRIVER,
    "mysql": "com.mysql.cj.jdbc.Driver",
    "mariadb": "org.mariadb.jdbc.Driver",
    "sqlserver": "com.microsoft.sqlserver.jdbc.SQLServerDriver",
    "oracle": "oracle.jdbc.OracleDriver",
    "db2": "com.ibm.db2.jcc.DB2Driver",
    "h2": "org.h2.Driver",
    "sqlite": "org.sqlite.JDBC",
}


def with_jdbc_driver(options: dict[str, str]) -> dict[str, str]:
    """``options`` with ``driver`` named after the URL's database when they do not name it (unknown: as given)."""
    if "driver" in options:
        return options
    subprotocol = options.get("url", "").removeprefix("jdbc:").partition(":")[0].lower()
    driver = _DRIVERS.get(subprotocol)
    return {**options, "driver": driver} if driver else options


#: Writer options that are Spark's, not the database driver's connection properties.
_SPARK_OPTIONS = frozenset(
    {"url", "dbtable", "driver", "batchsize", "isolationlevel", "truncate", "createtableoptions", "numpartitions"}
)


def upsert_jdbc_problem(options: dict[str, str], prefix: str) -> str | None:
    """Why the JDBC ``options`` cannot take upserts (not PostgreSQL), or ``None``."""
    url = options.get("url", "")
    if not url.startswith(_POSTGRESQL_URL):
        return (
            f"{prefix}write.mode=upsert over JDBC speaks PostgreSQL's INSERT ... ON CONFLICT: "
            f"{prefix}option.url must be a {_POSTGRESQL_URL} URL, found '{url}'"
        )
    return None


def pg_quote(name: str) -> str:
    """``name`` as a PostgreSQL identifier (as Spark's JDBC writer names columns)."""
    return '"' + name.replace('"', '""') + '"'


def upsert_jdbc(
    latest: Any,
    target: Any,
    key_columns: Sequence[str],
    delete_column: str,
    evolution: tuple[str, bool],
    unavailable: Sequence[str] = (),
) -> None:
    """Merge ``latest`` (one row per key, ``delete_column`` marking deletes) into ``target``'s table.

    ``evolution`` is the ``schema.evolution`` key and whether it lets the table take new columns;
    ``unavailable`` the columns whose values a row may list as unavailable (kept as stored).
    """
    spark = latest.sparkSession
    _refuse_connect(spark, target)
    table = target.table
    staging = f"{table}_smt_{hashlib.sha256(table.encode()).hexdigest()[:8]}"
    options = _writer_options(target)
    latest.write.format("jdbc").options(**options).option("dbtable", staging).mode("overwrite").save()
    columns = [name for name in latest.columns if name not in (delete_column, UNAVAILABLE_COLUMN)]
    connection = _connect(spark, target.options)
    try:
        connection.setAutoCommit(False)
        statement = connection.createStatement()
        try:
            added = _added_columns(connection, table, staging, columns)
            if added and not evolution[1]:
                raise TableWriteError(
                    f"{target.where}: field '{next(iter(added))}' is not a column of the table; set "
                    f"{evolution[0]}=add_columns to add it"
                )
            statements = _statements(connection, table, staging, columns, key_columns, delete_column, added)
            if unavailable:
                statements.insert(-1, fill_unavailable_pg(table, staging, unavailable, key_columns))
            for sql in statements:
                statement.execute(sql)
            connection.commit()
        except TableWriteError:
            connection.rollback()
            raise
        except Exception as exc:
            connection.rollback()
            raise TableWriteError(f"{target.where}: the upsert failed and was rolled back: {_summary(exc)}") from exc
        finally:
            statement.close()
        connection.setAutoCommit(True)
        drop = connection.createStatement()
        drop.execute(f"DROP TABLE IF EXISTS {staging}")
        drop.close()
    finally:
        connection.close()


def jdbc_columns(spark: Any, target: Any, names: Sequence[str] = ()) -> Any:
    """The table's columns (only ``names`` when given) as Spark reads them, a ``StructType``; ``None``
    when there is no table.

    Spark maps PostgreSQL's types back: smallint → short (a byte column is written as smallint),
    integer → int, bigint → long, real → float, double precision → double, numeric(p, s) →
    decimal(p, s), text and varchar → string, bytea → binary, date → date, timestamp → timestamp,
    arrays → arrays; NOT NULL columns (a primary key's) are not nullable.
    """
    _refuse_connect(spark, target)
    connection = _connect(spark, target.options)
    try:
        if not _exists(connection, target.table):
            return None
    finally:
        connection.close()
    options = _writer_options(target)
    selected = ", ".join(pg_quote(k) for k in names) or "*"
    query = f"SELECT {selected} FROM {target.table} WHERE 1 = 0"
    return spark.read.format("jdbc").options(**options).option("query", query).load().schema


def jdbc_tables(spark: Any, target: Any, schema: str) -> list[str]:
    """The names of the tables in the database schema ``schema`` (empty: the connection's current one)."""
    _refuse_connect(spark, target)
    connection = _connect(spark, target.options)
    try:
        query = connection.prepareStatement(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema::text = coalesce(CAST(? AS text), current_schema())"
        )
        try:
            query.setString(1, schema or None)
            result = query.executeQuery()
            names = []
            while result.next():
                names.append(result.getString(1))
            return names
        finally:
            query.close()
    finally:
        connection.close()


def _writer_options(target: Any) -> dict[str, str]:
    # Spark finds a driver loaded from spark.jars only when named.
    return with_jdbc_driver({k: v for k, v in target.options.items() if k.lower() != "dbtable"})


def _refuse_connect(spark: Any, target: Any) -> None:
    if is_connect(spark):
        raise TableWriteError(
            f"{target.where}: upsert over JDBC runs its statements from the driver's JVM, which a Spark "
            "Connect session does not have; run the pipeline on a classic Spark session"
        )


def _statements(
    connection: Any,
    table: str,
    staging: str,
    columns: list[str],
    keys: Sequence[str],
    delete_column: str,
    added: dict[str, str],
) -> list[str]:
    names = ", ".join(pg_quote(c) for c in columns)
    key_names = ", ".join(pg_quote(k) for k in keys)
    match = " AND ".join(f"t.{pg_quote(k)} = s.{pg_quote(k)}" for k in keys)
    updated = [c for c in columns if c not in keys]
    on_conflict = (
        "DO UPDATE SET " + ", ".join(f"{pg_quote(c)} = EXCLUDED.{pg_quote(c)}" for c in updated)
        if updated
        else "DO NOTHING"
    )
    statements = []
    if not _exists(connection, table):
        statements += [
            f"CREATE TABLE {table} AS SELECT {names} FROM {staging} WITH NO DATA",
            f"ALTER TABLE {table} ADD PRIMARY KEY ({key_names})",
        ]
    statements += [f"ALTER TABLE {table} ADD COLUMN {pg_quote(name)} {kind}" for name, kind in added.items()]
    return statements + [
        f"DELETE FROM {table} AS t USING {staging} AS s WHERE s.{pg_quote(delete_column)} AND {match}",
        f"INSERT INTO {table} ({names}) SELECT {names} FROM {staging} WHERE NOT {pg_quote(delete_column)} "
        f"ON CONFLICT ({key_names}) {on_conflict}",
    ]


#: The table comment that names the topic a routed table was made for.
_TOPIC_COMMENT = "smt topic: "


def claim_topic_table(spark: Any, target: Any, topic: str) -> None:
    """Make sure ``target.table`` (PostgreSQL, routed by ``${topic}``) holds ``topic``'s records only: a table
    an earlier run made for another topic (its comment names it) is refused, naming both; a table with no
    such comment is marked for ``topic``.  Two topics whose names sanitize alike, or differ only by case,
    can then never share a table across runs.  Other databases are left alone."""
    if "postgresql" not in target.options.get("url", ""):
        return
    connection = _connect(spark, target.options)
    try:
        owner = _table_topic(connection, target.table)
        if owner is not None and owner != topic:
            raise TableWriteError(
                f"{target.where}: the topic {topic!r} names the table {target.table!r}, which an earlier run "
                f"made for the topic {owner!r}: their records would share one table; route them apart "
                "(RegexRouter) or write them to one topic"
            )
        if owner is None and _exists(connection, target.table):
            statement = connection.createStatement()
            try:  # a literal: a topic holds only letters, digits, '.', '_' and '-' (TableTarget.route_problem)
                statement.execute(f"COMMENT ON TABLE {target.table} IS '{_TOPIC_COMMENT}{topic}'")
            finally:
                statement.close()
    finally:
        connection.close()


def _table_topic(connection: Any, table: str) -> str | None:
    """The topic ``table``'s comment names, or None (no table, no such comment)."""
    query = connection.prepareStatement("SELECT obj_description(to_regclass(?), 'pg_class')")
    try:
        query.setString(1, table)
        result = query.executeQuery()
        comment = result.getString(1) if result.next() else None
    finally:
        query.close()
    return comment[len(_TOPIC_COMMENT) :] if comment and comment.startswith(_TOPIC_COMMENT) else None


def _exists(connection: Any, table: str) -> bool:
    query = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")
    try:
        query.setString(1, table)
        result = query.executeQuery()
        result.next()
        return bool(result.getBoolean(1))
    finally:
        query.close()


def _added_columns(connection: Any, table: str, staging: str, columns: list[str]) -> dict[str, str]:
    """The columns of ``staging`` an existing ``table`` lacks, with their PostgreSQL types."""
    if not _exists(connection, table):
        return {}
    has = _column_types(connection, table)
    return {n: kind for n, kind in _column_types(connection, staging).items() if n in columns and n not in has}


def _column_types(connection: Any, table: str) -> dict[str, str]:
    """The columns of ``table`` with their PostgreSQL types (``numeric(9,2)``), in order."""
    query = connection.prepareStatement(
        "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped ORDER BY attnum"
    )
    try:
        query.setString(1, table)
        result = query.executeQuery()
        types = {}
        while result.next():
            types[result.getString(1)] = result.getString(2)
        return types
    finally:
        query.close()


def _connect(spark: Any, options: dict[str, str]) -> Any:
    """A connection through the PostgreSQL driver Spark loaded (``spark.jars``), with the writer's properties."""
    jvm = spark._jvm
    properties = jvm.java.util.Properties()
    for name, value in options.items():
        if name.lower() not in _SPARK_OPTIONS:
            properties.setProperty(name, str(value))
    driver_class = options.get("driver", _POSTGRESQL_DRIVER)
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    driver = jvm.java.lang.Class.forName(driver_class, True, loader).newInstance()
    return driver.connect(options["url"], properties)


def _summary(exc: BaseException) -> str:
    """The database's message of a py4j error, without the Java stack."""
    text = str(getattr(exc, "java_exception", None) or exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
