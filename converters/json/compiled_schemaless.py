"""The JSON converter's compiled form over whole records without schemas (``schemas.enable=false``).

Used by the JVM streaming path (:mod:`smt.pipeline.jvm_stream`): a record's
key or value is read as a flat JSON object (:class:`smt.compiled.CompiledObject`:
its entries, each a key, a kind and the JSON text of its value), rewritten by
the transforms' compiled forms, and written back as text, all in Spark SQL.

Spark parses with Jackson and the Python path with orjson, so a record is
*exact* (read alike by both, and written alike from what was read) only when
Spark's reading, written back compactly, gives the record's own text, up to
the whitespace between tokens:

- the text is valid UTF-8 (orjson refuses any other; Spark would read a
  replacement character) and holds no backslash, so no escape: every key
  and string is its literal text, which orjson writes back unchanged;
- it is an object whose values are strings, integers in the 64-bit range, booleans, nulls (the
  kinds of :data:`EXACT_KINDS`) and decimal numbers as orjson writes
  doubles (``12.5``, ``100.0``): at most 15 significant digits, so that
  the nearest double's shortest text, which orjson writes, is the same
  digits; at least 0.0001 or zero, where orjson writes no exponent; no
  trailing zero but ``.0`` (the written-back comparison checks it).
  An exponent (``1e2``), another decimal (``12.50``, ``0.00001``,
  ``1.0000000000000001``), a nested object or array is not;
- no key appears twice (Spark keeps both, orjson the last);
- a part no transform changes (a key, or a value the chain only filters) is
  read as one variant instead (:meth:`SchemalessCodec.rewritten`, a cheaper
  plan): a string, an integer, a boolean, or an object of those and nulls
  whose keys are in order, since Spark writes a variant's keys sorted;
- each value's text is the canonical one (``-0``, ``1e2`` and ``01`` are not),
  which the written-back comparison checks.

The path fails a micro-batch holding a record that is not exact, and the run
goes on in Python from that micro-batch (see the JVM streaming path).
Spark's ``VARIANT`` type gives each value's kind (``schema_of_variant``) and
canonical text (``to_json``); it needs Spark 4.0 or later.
"""

from __future__ import annotations

from typing import Any, Callable

from smt.compiled import CompiledObject, NotCompilable, ObjectRead

__all__ = ["DECIMAL", "EXACT_KINDS", "SchemalessCodec"]

#: The kinds (``schema_of_variant``'s names) whose text Jackson and orjson read and write alike.
EXACT_KINDS = ("STRING", "BIGINT", "BOOLEAN", "VOID")
#: An entry's kind for a number with a fraction (``schema_of_variant`` says ``DECIMAL(p,s)``): exact
#: where orjson writes it alike (see the module's doc).
DECIMAL = "DECIMAL"
_TOO_SMALL = r"^-?0\.0000"
_NOT_SIGNIFICANT = r"^-?[0.]*|\."
_MOST_DIGITS = 15
#: A variant's shape (``schema_of_variant``) of a flat object, and what no flat object's holds (a key
#: named so is refused too).  A document that is null is not one: the converter writes it as no bytes.
_FLAT_OBJECT = r"^OBJECT<[^<>]*>$"
_NOT_FLAT = r"DECIMAL|DOUBLE|FLOAT|ARRAY|DATE|TIME|BINARY|UUID|VARIANT|INTERVAL"
#: JSON's whitespace between tokens (Jackson also refuses the other ``\\s`` characters).
_WHITESPACE_OUTSIDE_STRINGS = r'("[^"]*")|[ \t\n\r]+'


class SchemalessCodec:
    """Reads and writes schemaless JSON records as Spark columns (see the module's doc).

    ``functions`` is ``pyspark.sql.functions``; ``write(value)`` is the converter's own writing of a
    Connect value (bytes, or None for None), used on the driver for the JSON text of the values the
    transforms set.
    """

    def __init__(self, functions: Any, write: Callable[[Any], bytes | None]) -> None:
        self.F = functions
        self._write = write

    @classmethod
    def of(cls, converter: Any, validator: Any, functions: Any) -> "SchemalessCodec":
        """The codec of a JSON ``converter`` (its JSON Schema ``validator``, or None); raises NotCompilable
        where its records have schemas or are validated."""
        if converter.schemas_enabled:
            raise NotCompilable("schemas.enable=true: records carry their schemas")
        if validator is not None:
            raise NotCompilable("json.schema: records are validated in Python")
        return cls(functions, lambda value: converter.from_connect_data(None, None, value))

    def token(self, value: Any) -> str:
        """The JSON text the converter writes for ``value`` (a string, number, bool or None)."""
        written = self._write(value)
        return "null" if written is None else bytes(written).decode("utf-8")

    def parse(self, data: Any) -> Any:
        """The entries of the object in ``data`` (a binary column): null where ``data`` is null or holds
        no object.  The one expensive column: the caller computes it once and hands it to :meth:`read`."""
        F = self.F
        parsed = F.from_json(data.cast("string"), "map<string,variant>", {"mode": "PERMISSIVE"})
        return F.transform(F.map_entries(parsed), lambda e: self._entry(e["key"], e["value"]))

    def read(self, data: Any, entries: Any) -> ObjectRead:
        """The object in ``data`` (a binary column), whose :meth:`parse` is the column ``entries``."""
        F = self.F
        text = data.cast("string")
        keys = F.transform(entries, lambda e: e["key"])
        exact = (
            _plain_text(F, text)
            & F.forall(entries, lambda e: e["kind"].isin(*EXACT_KINDS) | self._plain_decimal(e))
            & (F.size(F.array_distinct(keys)) == F.size(entries))
            & self._same_text(self.render(entries).cast("string"), text)
        )
        return ObjectRead(CompiledObject(entries, self.token), data.isNull() | F.coalesce(exact, F.lit(False)))

    def rewritten(self, data: Any) -> tuple[Any, Any]:
        """``(written, exact)`` for a record part no transform changed: the bytes the converter writes
        after reading ``data`` (a binary column; compact, where ``data`` was spaced), and a boolean
        column, true where Spark SQL reads and writes it as the converter does.  Read as one variant,
        without entries (the cheaper plan): a string, an integer, a boolean, or an object of those and
        nulls whose keys are in order (Spark writes an object's keys sorted)."""
        F = self.F
        text = data.cast("string")
        document = F.try_parse_json(text)
        shape, written = F.schema_of_variant(document), F.to_json(document)
        flat = shape.isin("STRING", "BIGINT", "BOOLEAN") | (shape.rlike(_FLAT_OBJECT) & ~shape.rlike(_NOT_FLAT))
        exact = F.coalesce(_plain_text(F, text) & flat & self._same_text(written, text), F.lit(False))
        return F.when(exact, written.cast("binary")).otherwise(data), data.isNull() | exact

    def render(self, entries: Any) -> Any:
        """The compact JSON text (binary) of ``entries``: null where they are null."""
        F = self.F
        members = F.transform(entries, lambda e: F.concat(F.lit('"'), e["key"], F.lit('":'), e["token"]))
        return F.concat(F.lit("{"), F.array_join(members, ","), F.lit("}")).cast("binary")

    def _entry(self, key: Any, value: Any) -> Any:
        """An entry of :class:`smt.compiled.CompiledObject` for a member read as a variant.  A decimal's
        text is Spark's, with ``.0`` put back where Spark drops a zero fraction (``100.0``), as orjson
        writes a double."""
        F = self.F
        kind, token = F.schema_of_variant(value), F.to_json(value)
        decimal = kind.startswith(DECIMAL)
        kind = F.when(decimal, F.lit(DECIMAL)).otherwise(kind)
        token = F.when(decimal & ~token.contains("."), F.concat(token, F.lit(".0"))).otherwise(token)
        return F.struct(key.alias("key"), kind.alias("kind"), token.alias("token"))

    def _plain_decimal(self, entry: Any) -> Any:
        """Whether ``entry`` is a decimal number both libraries write alike (see the module's doc)."""
        F, token = self.F, entry["token"]
        digits = F.length(F.regexp_replace(token, _NOT_SIGNIFICANT, ""))
        return (entry["kind"] == DECIMAL) & ~token.rlike(_TOO_SMALL) & (digits <= _MOST_DIGITS)

    def _same_text(self, rendered: Any, text: Any) -> Any:
        """``rendered`` (compact) is ``text``, or ``text`` without its whitespace between tokens (computed
        only where the first comparison fails)."""
        F = self.F
        compact = F.regexp_replace(text, _WHITESPACE_OUTSIDE_STRINGS, "$1")
        return F.when(rendered == text, F.lit(True)).otherwise(rendered == compact)


def _plain_text(F: Any, text: Any) -> Any:
    """Whether ``text`` (a string column cast from the record's bytes) is valid UTF-8 without a backslash."""
    return F.is_valid_utf8(text) & ~text.contains("\\")
