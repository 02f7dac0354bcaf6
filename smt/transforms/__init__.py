"""Kafka Connect's 16 built-in transforms, with Kafka's names, configs and semantics.

One module per transform (``insert_field.py``, ``mask_field.py``, ...), each
declaring its config once (``config_def``) with an overview in the class
docstring.  ``$Key``/``$Value`` variants are registered under our short names
(``InsertField$Value``), Kafka's class names
(``org.apache.kafka.connect.transforms.InsertField$Value``) and lower-case.

Beyond Kafka: every field-taking transform accepts ``field.syntax.version=V2``
(dotted paths into nested maps and structs), and no transform fails on a
tombstone; each docstring says what it does with one.  Schemaless batches go
through per-column loops (``apply_batch``) with every config lookup resolved
once per batch.

Shared machinery lives in private modules: ``_variant`` (key/value parts and
batch helpers), ``_field_path`` (V1/V2 paths), ``_requirements`` (Kafka's
shape checks), ``_schema_cache``, ``_structs``/``_struct_paths`` (deriving
schemas and structs), ``_casting``/``_timestamps`` (value conversions).
"""
