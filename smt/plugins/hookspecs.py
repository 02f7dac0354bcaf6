"""Hook specifications: how plugins add transforms, predicates, converters,
connectors, config providers, WebAssembly guest ABIs and host functions.

Every hook is collected from all plugins (none stops at the first result);
each returns a list of plugin classes (or host-function definitions).
Built-in plugins register through these same hooks.
"""

import pluggy

hookspec = pluggy.HookspecMarker("smt")


@hookspec
def smt_transforms():
    """Transform classes this plugin provides.

    :return: a list of :class:`smt.Transform` subclasses, each with a ``name``
        and optional ``aliases`` (for example Kafka Connect class names).
    """


@hookspec
def smt_predicates():
    """Predicate classes this plugin provides.

    :return: a list of :class:`smt.Predicate` subclasses.
    """


@hookspec
def smt_converters():
    """Converter classes this plugin provides.

    :return: a list of :class:`converters.Converter` (or header converter)
        subclasses, each with a ``name`` and optional ``aliases``.
    """


@hookspec
def smt_connectors():
    """Source and sink connector classes this plugin provides.

    :return: a list of :class:`smt.connector.Source` and :class:`smt.connector.Sink`
        subclasses, each with a ``name``.
    """


@hookspec
def smt_config_providers():
    """Config provider classes this plugin provides, for ``${provider:[path:]key}`` variables.

    :return: a list of :class:`smt.config_providers.ConfigProvider` subclasses,
        each with a ``name`` and optional ``aliases`` (Kafka class names).
    """


@hookspec
def smt_guest_abis():
    """WebAssembly guest ABIs this plugin provides, for the ``wasm`` transform.

    :return: a list of :class:`host_functions.guest_abi.GuestAbi` classes, each with a ``name`` (the
        ``transforms.X.abi`` value choosing it), a ``config_def`` of the keys only it reads, ``default``
        (True only for the ABI of modules no other claims), ``detect(module)`` saying whether a module
        was built for it, and ``build(guest)`` returning the guest's runner.
    """


@hookspec
def smt_host_functions():
    """Host functions, written in Python, offered to WebAssembly guests.

    :return: a list of :class:`host_functions.HostFunction` definitions. They
        run on the reference (Python) path.
    """
