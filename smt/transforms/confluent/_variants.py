"""``$Key`` and ``$Value`` variants under Confluent's class names."""

from __future__ import annotations

from smt.transforms._variant import KEY, VALUE

CONFLUENT_PACKAGE = "io.confluent.connect.transforms."


def confluent_variants(base: type, confluent_name: str, name: str, module: str) -> tuple[type, type]:
    """The ``$Key`` and ``$Value`` subclasses of ``base``: registered as ``name$Key`` / ``name$Value``,
    with Confluent's class names (``io.confluent.connect.transforms.<confluent_name>$Key``) as aliases."""
    variants = []
    for part in (KEY, VALUE):
        suffix = part.kafka_suffix
        cls = type(
            f"{base.__name__}{suffix}",
            (base,),
            {
                "part": part,
                "name": f"{name}${suffix}",
                "aliases": (f"{CONFLUENT_PACKAGE}{confluent_name}${suffix}",),
                "__module__": module,
                "__doc__": base.__doc__,
            },
        )
        variants.append(cls)
    return variants[0], variants[1]
