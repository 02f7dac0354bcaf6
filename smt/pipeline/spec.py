"""A pipeline's configuration: the top-level keys, parsed and validated once.

``PipelineSpec.from_properties`` builds every plugin the pipeline needs
(source, sink, converters, chain, error policy) on the driver, so that a bad
file fails before Spark starts, with every problem listed, each naming its key.
Relative values of the keys declared as paths (``ConfigType.PATH``) resolve
against the folder of the properties file (for a mapping: the current
directory); see :mod:`smt.pipeline.paths`.

Order: the file is read, ``overrides`` (``smt run --set``) replace its keys,
config providers resolve ``${provider:[path:]key}`` variables (so an
override may use variables too), paths are resolved, and everything is
validated.  Messages show variables, not their values.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
from typing import Any, Collection, Mapping

from smt._chain_builder import sub_configs
from smt.chain import TransformChain
from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.config_providers import ResolvedProperties, resolve_variables
from smt.config_review import ConfigNotice, review_pipeline_keys
from smt.connector import SinkContext
from smt.connector_roles import SinkRoles, SourceRoles, sink_roles, source_roles
from smt.converter import Converter
from smt.duplicate_keys import duplicate_notices, with_notices
from smt.error_handling import ERRORS_CONFIG, ErrorPolicy
from smt.errors import ConfigError, ConfigProblem, SmtError
from smt.pipeline import paths
from smt.pipeline.cluster import spark_master_url
from smt.pipeline.compiled_plan import COMPILE_CONFIG
from smt.pipeline.dead_letters import build_dead_letters
from smt.pipeline.fields import FieldPlan, plan_fields
from smt.pipeline.streaming import STREAMING_CONFIG, CheckpointMismatch, check_local_checkpoint, checkpoint_keys
from smt.plugin import PluginContext
from smt.properties import with_inline_comment_hints

__all__ = ["PIPELINE_CONFIG", "PipelineSpec"]

log = logging.getLogger(__name__)

#: The pipeline's ``name`` when the file gives none.
DEFAULT_NAME = "smt-pipeline"

PIPELINE_CONFIG = (
    (
        ConfigDef()
        .define(
            "name",
            ConfigType.STRING,
            DEFAULT_NAME,
            None,
            Importance.LOW,
            "Name of the pipeline: the Spark application name and the connector name in dead-letter context headers.",
        )
        .define(
            "source",
            ConfigType.STRING,
            "file",
            None,
            Importance.HIGH,
            "Source connector name (its keys go under 'source.').",
        )
        .define(
            "sink", ConfigType.STRING, "file", None, Importance.HIGH, "Sink connector name (its keys go under 'sink.')."
        )
        .define(
            "mode",
            ConfigType.STRING,
            "batch",
            one_of("batch", "streaming"),
            Importance.HIGH,
            "'batch' processes what is there and exits; 'streaming' runs a Structured Streaming "
            "query with checkpoint.location.",
        )
        .define(
            "checkpoint.location",
            ConfigType.PATH,
            "",
            None,
            Importance.HIGH,
            "Checkpoint directory of the streaming query (required in streaming mode). A restart may "
            "change transforms, predicates, converters and errors.* (the changes are logged); another "
            "source or sink (source, sink, and the keys each connector declares: the file source's path, "
            "the Kafka source's topics and topic.pattern, the file sink's path and format) is refused.",
        )
        .define(
            "key.converter",
            ConfigType.CLASS,
            "bytearray",
            None,
            Importance.HIGH,
            "Converter for record keys (its keys go under 'key.converter.').",
        )
        .define(
            "value.converter",
            ConfigType.CLASS,
            "bytearray",
            None,
            Importance.HIGH,
            "Converter for record values (its keys go under 'value.converter.').",
        )
        .define(
            "header.converter",
            ConfigType.CLASS,
            "simple",
            None,
            Importance.MEDIUM,
            "Converter for header values a transform set (InsertHeader, HeaderFrom), written out; "
            "headers read from the source stay bytes and are written back as they were. "
            "Kafka Connect's default, SimpleHeaderConverter, writes a value's string form.",
        )
        .define(
            "spark.master",
            ConfigType.STRING,
            "local[*]",
            spark_master_url,
            Importance.MEDIUM,
            "Spark master URL; every 'spark.*' key goes to the SparkSession.",
        )
        .define(
            "config.providers",
            ConfigType.LIST,
            [],
            None,
            Importance.LOW,
            "Names of Kafka config providers whose ${NAME:[path:]key} variables are resolved in this "
            "file; each is set up with config.providers.NAME.class and config.providers.NAME.param.*.",
        )
        .define_prefix("config.providers.", "Each config provider's class and params (see config.providers).")
        .define_prefix("spark.", "Spark settings, given to the SparkSession as they are.")
        .define_prefix("source.", "The source connector's settings.", plugin_kind="source", plugin_key="source")
        .define_prefix("sink.", "The sink connector's settings.", plugin_kind="sink", plugin_key="sink")
        .define_prefix(
            "key.converter.", "The key converter's settings.", plugin_kind="converter", plugin_key="key.converter"
        )
        .define_prefix(
            "value.converter.", "The value converter's settings.", plugin_kind="converter", plugin_key="value.converter"
        )
        .define_prefix(
            "header.converter.",
            "The header converter's settings.",
            plugin_kind="converter",
            plugin_key="header.converter",
        )
    )
    .merge(STREAMING_CONFIG)
    .merge(ERRORS_CONFIG)
    .merge(COMPILE_CONFIG)
)


@dataclasses.dataclass
class PipelineSpec:
    """Everything a pipeline run needs, configured and validated."""

    props: dict[str, str]
    config: dict[str, Any]
    source: Any
    sink: Any
    key_converter: Any
    value_converter: Any
    header_converter: Any
    chain: TransformChain
    policy: ErrorPolicy
    #: What config providers replaced; :meth:`shown_props` and its ``mask`` hide the values.
    variables: ResolvedProperties | None = None
    #: Deprecated keys in use and converter keys nothing reads (``smt validate`` warns, ``smt run`` logs
    #: them); unknown keys are problems.
    notices: list[ConfigNotice] = dataclasses.field(default_factory=list)
    #: The dead-letter writer (``errors.deadletterqueue.*``), or None: built once, when the spec is validated.
    dead_letters: Any = None
    #: What the sink, the dead-letter writer and the source can do besides writing and reading,
    #: resolved once, here (see :mod:`smt.connector_roles`); None for a part that is missing.
    sink_roles: SinkRoles | None = dataclasses.field(init=False, default=None)
    dead_letter_roles: SinkRoles | None = dataclasses.field(init=False, default=None)
    source_roles: SourceRoles | None = dataclasses.field(init=False, default=None)

    def __post_init__(self) -> None:
        self.sink_roles = sink_roles(self.sink) if self.sink is not None else None
        self.dead_letter_roles = sink_roles(self.dead_letters) if self.dead_letters is not None else None
        self.source_roles = source_roles(self.source) if self.source is not None else None

    def sink_context(self, session: Any = None, checkpoint: str | None = None) -> SinkContext:
        """What the sink and the dead-letter writer are opened with (:meth:`smt.connector.Sink.open`)."""
        return sink_context(self.source, self.chain, self.key_converter, self.value_converter,
                            self.dead_letters, session, checkpoint)  # fmt: skip

    def open_outputs(self, session: Any, checkpoint: str | None = None) -> None:
        """Open the dead-letter writer, then the sink, with the session that runs the job: before it
        reads a record, so that a queue that cannot be written fails the run before any output is written."""
        context = self.sink_context(session, checkpoint)
        if self.dead_letters is not None:
            self.dead_letters.open(dataclasses.replace(context, dead_letters=None))
        self.sink.open(context)

    @classmethod
    def from_properties(
        cls, source: str | os.PathLike | Mapping[str, Any], *, plugins: Any = None,
        overrides: Mapping[str, str] | None = None, base_dir: str | None = None, strict: bool = False,
        unset: Collection[str] = (),
    ) -> "PipelineSpec":  # fmt: skip
        """Build and validate; raises :class:`ConfigError` listing every problem.

        ``unset`` keys are removed from ``source`` (``smt run --unset``; a key
        it does not set is a notice), then ``overrides`` replace keys of
        ``source``, both before variables are resolved;
        ``base_dir`` is where a mapping's relative paths start (default: the
        current directory).  Unknown keys (a key of ours that nothing reads)
        are problems; deprecated keys and converter keys no converter reads
        are ``notices`` of the spec (and of the error, when there is one), and
        problems with ``strict``.
        """
        pipeline_file = None
        if isinstance(source, Mapping):
            props, base_dir = dict(source), base_dir or os.getcwd()
        else:
            from smt.properties import load_properties

            props = load_properties(source)
            pipeline_file = os.path.abspath(os.fspath(source))
            base_dir = os.path.dirname(pipeline_file)
        if plugins is None:
            from smt.plugins import default_plugins

            plugins = default_plugins()
        log.info(
            "read %s: %d keys%s",
            pipeline_file or "the configuration",
            len(props),
            f", {len(overrides)} set on the command line" if overrides else "",
        )
        removed = _unset_notices(props, unset)
        props = _without(props, unset)
        variables = resolve_variables({**props, **(overrides or {})}, plugins)
        if variables.resolved_keys:
            log.info("resolved the variables of %s", ", ".join(sorted(variables.resolved_keys)))
        duplicated = removed + duplicate_notices(props, overrides)
        try:
            props = resolve_paths(variables.values, base_dir, plugins)
            spec = _Builder(props, plugins, pipeline_file, strict, variables).build(cls)
        except ConfigError as exc:
            exc = with_inline_comment_hints(exc, variables.written)
            raise variables.mask_error(with_notices(exc, duplicated, strict)) from None
        if strict and duplicated:
            raise variables.mask_error(with_notices(ConfigError([]), duplicated, strict))
        spec.notices = duplicated + spec.notices
        spec.variables = variables
        spec.policy = dataclasses.replace(spec.policy, mask=variables.secret_mask())
        spec._log_parts()
        return spec

    def _log_parts(self) -> None:
        config = self.config
        stages = ", ".join(stage.alias for stage in self.chain.stages) if self.chain is not None else ""
        log.info("source %s, sink %s, mode %s", config.get("source") or "none", config.get("sink") or "none",
                 config["mode"])  # fmt: skip
        log.info("converters: key %s, value %s, header %s", *(type(converter).__name__ for converter in
                 (self.key_converter, self.value_converter, self.header_converter)))  # fmt: skip
        log.info("transforms: %s", stages or "none")
        dead = self.policy.dlq_path or self.policy.dlq_topic if self.policy.tolerates_all else None
        log.info("errors.tolerance=%s, dead letters: %s", "all" if self.policy.tolerates_all else "none",
                 dead or "none")  # fmt: skip
        log.info("checked: every plugin configured, input present, outputs not overlapping inputs%s",
                 ", checkpoint matches the pipeline" if self.streaming else ", output folders writable")  # fmt: skip

    def shown_props(self) -> dict[str, Any]:
        """The properties as they may be shown or stored: variables in place of their values."""
        return _shown_props(self.props, self.variables)

    @functools.cached_property
    def field_plan(self) -> FieldPlan:
        """Which Kafka row fields cross between Spark and Python in this run (worked out once)."""
        return plan_fields(self)

    @property
    def streaming(self) -> bool:
        return self.config["mode"] == "streaming"

    def spark_conf(self) -> dict[str, str]:
        """Every ``spark.*`` key of the file, plus what the connectors need.

        ``spark.jars`` lists are joined (the connectors' jars and the user's),
        not replaced.
        """
        conf = {
            "spark.sql.session.timeZone": "UTC",
            # Local runs stay on loopback; a cluster's own settings override these.
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            # `smt run` shows its own progress line.
            "spark.ui.showConsoleProgress": "false",
            # Larger Arrow batches amortise each Python/Wasm crossing over more records.
            "spark.sql.execution.arrow.maxRecordsPerBatch": "65536",
        }
        jars: list[str] = []
        user = {k: v for k, v in self.props.items() if k.startswith("spark.")}
        for plugin in (self.source, self.sink, self.dead_letters, _JarsOf(user)):
            plugin_conf = dict(plugin.spark_conf()) if plugin is not None else {}
            jars.extend(j for j in plugin_conf.pop("spark.jars", "").split(",") if j and j not in jars)
            conf.update(plugin_conf)
        if jars:
            conf["spark.jars"] = ",".join(jars)
        conf["spark.master"] = self.config["spark.master"]
        return conf


def _unset_notices(props: Mapping[str, Any], unset: Collection[str]) -> list[ConfigNotice]:
    return [
        ConfigNotice(key, "unset", "--unset names a key the file does not set, so nothing was removed")
        for key in unset
        if key not in props
    ]


def _without(props: Any, unset: Collection[str]) -> Any:
    """``props`` less the ``unset`` keys, of the same type (a file's Properties keep their duplicates)."""
    kept = type(props)()
    kept.update((k, v) for k, v in props.items() if k not in unset)
    if hasattr(props, "duplicates"):
        kept.duplicates = {k: lines for k, lines in props.duplicates.items() if k not in unset}
    return kept


def _shown_props(props: dict[str, Any], variables: ResolvedProperties | None) -> dict[str, Any]:
    if variables is None:
        return dict(props)
    written, resolved = variables.written, variables.resolved_keys  # resolved_keys is computed on each call
    return {k: written[k] if k in resolved else v for k, v in props.items()}


class _JarsOf:
    """The user's own ``spark.*`` keys, shaped like a plugin's ``spark_conf``."""

    def __init__(self, conf: dict[str, str]) -> None:
        self._conf = conf

    def spark_conf(self) -> dict[str, str]:
        return self._conf


def resolve_paths(props: Mapping[str, Any], base_dir: str, plugins: Any = None) -> dict[str, Any]:
    """Make the relative values of declared path keys absolute against ``base_dir``."""
    if plugins is None:
        from smt.plugins import default_plugins

        plugins = default_plugins()
    return paths.resolve_paths(props, base_dir, PIPELINE_CONFIG, plugins)


class _Builder:
    """Builds each part, collecting problems instead of stopping at the first."""

    def __init__(
        self,
        props: dict[str, Any],
        plugins: Any,
        pipeline_file: str | None = None,
        strict: bool = False,
        variables: ResolvedProperties | None = None,
    ) -> None:
        self.props = props
        self.variables = variables
        self.plugins = plugins
        self.pipeline_file = pipeline_file
        self.strict = strict
        self.problems: list[ConfigProblem] = []

    def build(self, spec_cls: type[PipelineSpec]) -> PipelineSpec:
        config = self._parse_top_level()
        parts = dict(
            source=self._connector("source", config.get("source")),
            sink=self._connector("sink", config.get("sink")),
            key_converter=self._converter("key.converter", config.get("key.converter"), True),
            value_converter=self._converter("value.converter", config.get("value.converter"), False),
            header_converter=self._converter("header.converter", config.get("header.converter"), False),
            chain=self._chain(),
            policy=self._policy(config),
        )
        if config.get("mode") == "streaming" and not config.get("checkpoint.location"):
            self.problems.append(ConfigProblem("checkpoint.location", "is required when mode=streaming"))
        self._check_overlaps(parts)
        parts["dead_letters"] = self._dead_letters(config, parts["policy"], parts["sink"])
        self._open_outputs(parts)
        if config.get("mode") == "batch":
            self._check_existing_outputs(parts)
        elif config.get("checkpoint.location"):
            self._check_checkpoint(config, parts)
        notices = review_pipeline_keys(PIPELINE_CONFIG, self.props, self.plugins)
        # A key of ours that nothing reads is a typo that changes what happens (errors.tolerence=all):
        # an error.  Keys under a prefix handed to another system (spark.*, *.kafka.*) are never
        # reported; deprecated keys still work, and converters ignore keys they do not read (as Kafka
        # Connect does), so those stay warnings unless strict.
        refused = [n for n in notices if self.strict or n.kind == "unknown"]
        self.problems += [ConfigProblem(n.key, n.message, self.props.get(n.key)) for n in refused]
        notices = [n for n in notices if n not in refused]
        if self.problems:
            error = ConfigError(self.problems)
            error.notices = notices
            raise error
        return spec_cls(props=self.props, config=config, notices=notices, **parts)

    def _dead_letters(self, config: dict[str, Any], policy: ErrorPolicy | None, sink: Any) -> Any:
        # Built here, once, so that `smt validate` finds what the run would (a topic with no Kafka settings).
        if policy is None:
            return None
        try:
            return build_dead_letters(policy, self.props, config.get("sink"), sink)
        except ConfigError as exc:
            self.problems.extend(exc.problems)
            return None

    def _check_existing_outputs(self, parts: dict[str, Any]) -> None:
        """An output folder the run may not replace (``write.mode=errorifexists``), found before Spark starts."""
        for writer in (parts["sink"], parts["dead_letters"]):
            conflicts = writer.output_conflicts() if writer is not None else {}
            self.problems += [ConfigProblem(key, reason, self.props.get(key)) for key, reason in conflicts.items()]

    def _check_checkpoint(self, config: dict[str, Any], parts: dict[str, Any]) -> None:
        """A checkpoint written by a pipeline whose source or sink was another, found before Spark starts."""
        if parts["source"] is None or parts["sink"] is None:
            return  # already reported
        identity = checkpoint_keys(self.props, source_roles(parts["source"]), sink_roles(parts["sink"]))
        shown = _shown_props(self.props, self.variables)
        try:
            check_local_checkpoint(config["checkpoint.location"], shown, identity)
        except CheckpointMismatch as exc:
            self.problems.append(
                ConfigProblem("checkpoint.location", f"'{config['checkpoint.location']}' {exc.reason}")
            )

    def _check_overlaps(self, parts: dict[str, Any]) -> None:
        source, sink, policy = parts["source"], parts["sink"], parts["policy"]
        dead_letters = {"errors.deadletterqueue.path": policy.dlq_path} if policy and policy.dlq_path else {}
        self.problems.extend(
            paths.overlap_problems(
                source.input_paths() if source is not None else {},
                sink.output_paths() if sink is not None else {},
                dead_letters,
                self.pipeline_file,
            )
        )

    def _open_outputs(self, parts: dict[str, Any]) -> None:
        """Open the sink and the dead-letter writer with what they see of the pipeline, without a session:
        a Kafka sink refuses to write where the pipeline reads, a dead-letter topic the pipeline reads
        is refused; and give the source the converters."""
        source, sink, chain = parts["source"], parts["sink"], parts["chain"]
        if source is None or sink is None or chain is None:
            return  # already reported
        context = sink_context(source, chain, parts["key_converter"], parts["value_converter"],
                               parts["dead_letters"])  # fmt: skip
        if context.key_converter is not None and context.value_converter is not None:
            source.bind_converters(context.key_converter, context.value_converter)
        for output, seen in ((sink, context), (parts["dead_letters"], dataclasses.replace(context, dead_letters=None))):
            if output is None:
                continue
            try:
                output.open(seen)
            except ConfigError as exc:
                self.problems.extend(exc.problems)

    def _parse_top_level(self) -> dict[str, Any]:
        try:
            return PIPELINE_CONFIG.parse(self.props)
        except ConfigError as exc:
            self.problems.extend(exc.problems)
        # Carry on with defaults in place of the bad values, to find the other problems.
        bad = {problem.key for problem in self.problems}
        return PIPELINE_CONFIG.parse({k: v for k, v in self.props.items() if k not in bad})

    def _connector(self, kind: str, name: str | None) -> Any:
        if not name:
            return None
        try:
            cls = self.plugins.get(kind, name)
        except KeyError as exc:
            self.problems.append(ConfigProblem(kind, exc.args[0], name))
            return None
        return self._configure(cls(), sub_configs(self.props, f"{kind}."), f"{kind}.", kind)

    def _converter(self, key: str, name: str | None, is_key: bool) -> Any:
        if not name:
            return None
        try:
            cls = self.plugins.get("converter", name)
        except KeyError as exc:
            self.problems.append(ConfigProblem(key, exc.args[0], name))
            return None
        converter = cls()
        configs = sub_configs(self.props, f"{key}.")
        context = PluginContext(alias=key, prefix=f"{key}.", plugins=self.plugins)
        try:
            if isinstance(converter, Converter):  # a header converter alone is configured without is_key
                converter.configure(configs, is_key=is_key, context=context)
            else:
                converter.configure(configs, context=context)
        except ConfigError as exc:
            self.problems.extend(exc.problems)
            return None
        return converter

    def _configure(self, plugin: Any, configs: dict, prefix: str, alias: str) -> Any:
        try:
            name = str(self.props.get("name") or DEFAULT_NAME)
            context = PluginContext(alias=alias, prefix=prefix, plugins=self.plugins, pipeline=name)
            plugin.configure(configs, context)
        except ConfigError as exc:
            self.problems.extend(exc.problems)
            return None
        except SmtError as exc:
            self.problems.append(ConfigProblem(prefix.rstrip("."), str(exc)))
            return None
        return plugin

    def _chain(self) -> TransformChain | None:
        try:
            return TransformChain.from_properties(self.props, plugins=self.plugins)
        except ConfigError as exc:
            self.problems.extend(exc.problems)
            return None

    def _policy(self, config: dict[str, Any]) -> ErrorPolicy | None:
        try:
            return ErrorPolicy.from_properties(self.props, connector_name=config.get("name", DEFAULT_NAME))
        except ConfigError:
            return None  # already reported by the top-level parse


def sink_context(
    source: Any, chain: Any, key_converter: Any, value_converter: Any, dead_letters: Any,
    session: Any = None, checkpoint: str | None = None,
) -> SinkContext:  # fmt: skip
    """The :class:`SinkContext` of a pipeline's parts."""
    return SinkContext(
        source=source,
        may_route=chain.may_change("topic"),
        key_converter=key_converter if value_converter is not None else None,
        value_converter=value_converter if key_converter is not None else None,
        dead_letters=dead_letters,
        session=session,
        checkpoint=checkpoint,
    )
