"""Secured listeners for the local broker: SASL/PLAIN users and a throwaway TLS CA.

:class:`BrokerSecurity` says which listeners the broker opens to clients
(``PLAINTEXT``, ``SASL_PLAINTEXT``, ``SSL``, ``SASL_SSL``; each listener is
named after its protocol) and which SASL/PLAIN users exist.  For TLS a CA and
a broker certificate for ``127.0.0.1`` are made with the JDK's ``keytool``
(nothing is downloaded); :class:`TlsFiles` names them.  :class:`ClientSecurity`
turns a listener and a user into client settings, for Java clients (Spark,
``kafka.*`` keys) and for librdkafka (confluent-kafka).
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import shutil
import subprocess
from pathlib import Path
from typing import Mapping

from smt.local._kafka_setup import BrokerError

__all__ = ["PROTOCOLS", "BrokerSecurity", "ClientSecurity", "TlsFiles", "ensure_tls_files"]

PROTOCOLS = ("PLAINTEXT", "SASL_PLAINTEXT", "SSL", "SASL_SSL")
PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
#: The broker's own SASL user (inter-broker traffic, the readiness probe).
BROKER_USER = "smt-local-broker"

# JAAS option values are quoted; keep them free of quotes, backslashes and
# whitespace so no escaping is needed (and none can go wrong).
_JAAS_SAFE = re.compile(r"[^\s\"\\;=]+")


@dataclasses.dataclass(frozen=True)
class BrokerSecurity:
    """The client listeners (first one: inter-broker and readiness) and SASL/PLAIN users."""

    listeners: tuple[str, ...] = ("PLAINTEXT",)
    #: SASL/PLAIN user name -> password, for the SASL listeners.
    users: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "listeners", tuple(self.listeners))
        object.__setattr__(self, "users", dict(self.users))
        if not self.listeners:
            raise ValueError("the broker needs at least one client listener")
        unknown = [p for p in self.listeners if p not in PROTOCOLS]
        if unknown:
            raise ValueError(f"unknown listener protocols {unknown}; choose from {', '.join(PROTOCOLS)}")
        if len(set(self.listeners)) != len(self.listeners):
            raise ValueError(f"each listener protocol at most once, got {list(self.listeners)}")
        if self.sasl and not self.users:
            raise ValueError("a SASL listener needs at least one user (name -> password)")
        for name, password in self.users.items():
            if name == BROKER_USER:
                raise ValueError(f"user name '{BROKER_USER}' is reserved for the broker itself")
            for what, text in (("user name", name), (f"password of '{name}'", password)):
                if not _JAAS_SAFE.fullmatch(text):
                    raise ValueError(f"{what} must be non-empty, without whitespace, quotes, '\\', ';' or '='")

    @property
    def sasl(self) -> bool:
        return any(p.startswith("SASL_") for p in self.listeners)

    @property
    def tls(self) -> bool:
        return any(p.endswith("SSL") for p in self.listeners)

    def to_json(self) -> dict:
        return {"listeners": list(self.listeners), "users": dict(self.users)}

    @classmethod
    def from_json(cls, data: Mapping | None) -> "BrokerSecurity":
        if not data:
            return cls()
        return cls(tuple(data.get("listeners") or ("PLAINTEXT",)), data.get("users") or {})


@dataclasses.dataclass(frozen=True)
class TlsFiles:
    """A throwaway CA and the broker's key, all PKCS12 stores sharing one password."""

    directory: Path
    password: str

    @property
    def ca_pem(self) -> Path:
        """The CA certificate (PEM), for librdkafka's ``ssl.ca.location`` or Python's ssl."""
        return self.directory / "ca.pem"

    @property
    def truststore(self) -> Path:
        """The CA certificate in a PKCS12 truststore, for Java's ``ssl.truststore.location``."""
        return self.directory / "truststore.p12"

    @property
    def keystore(self) -> Path:
        """The broker's key and certificate chain (PKCS12)."""
        return self.directory / "broker.p12"


@dataclasses.dataclass(frozen=True)
class ClientSecurity:
    """How a client connects to one listener: its protocol, a SASL user, the CA to trust."""

    protocol: str = "PLAINTEXT"
    username: str | None = None
    password: str | None = None
    tls: TlsFiles | None = None

    def java(self) -> dict[str, str]:
        """Kafka Java client settings (as ``source.kafka.*``/``sink.kafka.*`` keys take them)."""
        settings = {"security.protocol": self.protocol}
        if self.protocol.startswith("SASL_"):
            settings["sasl.mechanism"] = "PLAIN"
            settings["sasl.jaas.config"] = plain_jaas_config(self.username or "", self.password or "")
        if self.protocol.endswith("SSL") and self.tls is not None:
            settings["ssl.truststore.location"] = str(self.tls.truststore)
            settings["ssl.truststore.password"] = self.tls.password
            settings["ssl.truststore.type"] = "PKCS12"
        return settings

    def librdkafka(self) -> dict[str, str]:
        """The same for librdkafka (confluent-kafka), which wants a PEM CA and plain user fields."""
        settings = {"security.protocol": self.protocol.lower()}
        if self.protocol.startswith("SASL_"):
            settings.update({"sasl.mechanism": "PLAIN", "sasl.username": self.username or "",
                             "sasl.password": self.password or ""})  # fmt: skip
        if self.protocol.endswith("SSL") and self.tls is not None:
            settings["ssl.ca.location"] = str(self.tls.ca_pem)
        return settings


def plain_jaas_config(username: str, password: str, users: Mapping[str, str] | None = None) -> str:
    """A ``sasl.jaas.config`` value for SASL/PLAIN; ``users`` adds the broker's ``user_NAME`` entries."""
    options = [f'username="{username}"', f'password="{password}"']
    options += [f'user_{name}="{secret}"' for name, secret in (users or {}).items()]
    return f"{PLAIN_LOGIN_MODULE} required {' '.join(options)};"


def listener_properties(
    security: BrokerSecurity, ports: Mapping[str, int], controller_port: int, host: str,
    broker_password: str, tls: TlsFiles | None,
) -> str:  # fmt: skip
    """The ``server.properties`` lines for the listeners, SASL users and TLS stores."""
    first = security.listeners[0]
    listeners = [f"{p}://{host}:{ports[p]}" for p in security.listeners]
    protocol_map = ["CONTROLLER:PLAINTEXT", *(f"{p}:{p}" for p in security.listeners)]
    lines = [
        f"listeners={','.join([*listeners, f'CONTROLLER://{host}:{controller_port}'])}",
        f"advertised.listeners={','.join(listeners)}",
        "controller.listener.names=CONTROLLER",
        f"inter.broker.listener.name={first}",
        f"listener.security.protocol.map={','.join(protocol_map)}",
    ]
    if security.sasl:
        users = {BROKER_USER: broker_password, **security.users}
        jaas = plain_jaas_config(BROKER_USER, broker_password, users)
        lines += ["sasl.enabled.mechanisms=PLAIN", "sasl.mechanism.inter.broker.protocol=PLAIN"]
        lines += [f"listener.name.{p.lower()}.plain.sasl.jaas.config={jaas}"
                  for p in security.listeners if p.startswith("SASL_")]  # fmt: skip
    if tls is not None:
        lines += [
            f"ssl.keystore.location={tls.keystore}", "ssl.keystore.type=PKCS12",
            f"ssl.keystore.password={tls.password}", f"ssl.key.password={tls.password}",
            # The broker's own inter-broker client trusts the same throwaway CA.
            f"ssl.truststore.location={tls.truststore}", "ssl.truststore.type=PKCS12",
            f"ssl.truststore.password={tls.password}",
        ]  # fmt: skip
    return "\n".join(lines) + "\n"


def ensure_tls_files(directory: Path, java: str, host: str) -> TlsFiles:
    """The CA and broker stores in ``directory``, made with ``keytool`` if not there yet.

    The broker certificate is signed by the CA and valid for ``host`` (an IP
    address) and ``localhost``, so clients can verify the broker's name.
    """
    password_file = directory / "store-password"
    if password_file.is_file():
        tls = TlsFiles(directory, password_file.read_text().strip())
        if all(p.is_file() for p in (tls.ca_pem, tls.truststore, tls.keystore)):
            return tls
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True, mode=0o700)
    tls = TlsFiles(directory, secrets.token_hex(16))
    password_file.write_text(tls.password + "\n")
    password_file.chmod(0o600)
    _make_stores(tls, _keytool(java), host)
    return tls


def _make_stores(tls: TlsFiles, keytool: str, host: str) -> None:
    ca, csr, cert = tls.directory / "ca.p12", tls.directory / "broker.csr", tls.directory / "broker.pem"
    store = ["-storetype", "PKCS12", "-storepass", tls.password]
    key = ["-keyalg", "RSA", "-keysize", "2048", "-validity", "30"]
    san = f"SAN=ip:{host},dns:localhost"
    steps = [
        ["-genkeypair", "-alias", "ca", *key, "-dname", "CN=spark-smt local CA", "-ext", "bc:c",
         "-keystore", ca, *store],
        ["-exportcert", "-rfc", "-alias", "ca", "-keystore", ca, *store, "-file", tls.ca_pem],
        ["-genkeypair", "-alias", "broker", *key, "-dname", f"CN={host}", "-ext", san,
         "-keystore", tls.keystore, *store],
        ["-certreq", "-alias", "broker", "-keystore", tls.keystore, *store, "-file", csr],
        ["-gencert", "-alias", "ca", "-keystore", ca, *store, "-infile", csr, "-outfile", cert,
         "-rfc", "-validity", "30", "-ext", san],
        ["-importcert", "-noprompt", "-alias", "ca", "-file", tls.ca_pem, "-keystore", tls.keystore, *store],
        ["-importcert", "-alias", "broker", "-file", cert, "-keystore", tls.keystore, *store],
        ["-importcert", "-noprompt", "-alias", "ca", "-file", tls.ca_pem, "-keystore", tls.truststore, *store],
    ]  # fmt: skip
    for step in steps:
        done = subprocess.run([keytool, *map(str, step)], capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise BrokerError(
                f"making the local broker's TLS certificates in {tls.directory} failed at "
                f"'keytool {step[0]}' (exit {done.returncode}):\n{(done.stdout + done.stderr).strip()[-1000:]}"
            )


def _keytool(java: str) -> str:
    beside_java = Path(java).resolve().parent / "keytool"
    if beside_java.is_file():
        return str(beside_java)
    found = shutil.which("keytool")
    if found is None:
        raise BrokerError("cannot make TLS certificates for Kafka: no 'keytool' beside java or on PATH")
    return found
