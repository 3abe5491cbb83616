"""Bootstrap tokens as the CLI handles them: making one, its Secret, its row in `token list`.

A bootstrap token `<id>.<secret>` lets a new member in once: `flotilla register` reads the hub's
`cluster-info` with it (the token's secret signs it) and asks for its agent's certificate with it
(it authenticates as `system:bootstrap:<id>`). The hub stores it as kubeadm does, as the Secret
`kube-system/bootstrap-token-<id>` of type `bootstrap.kubernetes.io/token` with both usages and the
group Karmada's registration uses, `system:bootstrappers:karmada:default-cluster-token`; the hub's
token cleaner deletes it once its `expiration` has passed.

Everything here is pure (the random token comes from `secrets`); `commands/token.py` does the talking.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from flotilla.api.duration import parse_go_duration, short_human_duration

SECRET_NAMESPACE = "kube-system"  # noqa: S105 - where token Secrets live, not a secret
SECRET_NAME_PREFIX = "bootstrap-token-"  # noqa: S105 - a name prefix, not a secret
SECRET_TYPE = "bootstrap.kubernetes.io/token"  # noqa: S105 - a Secret type, not a secret
DEFAULT_GROUP = "system:bootstrappers:karmada:default-cluster-token"
"""The extra group of tokens made for registering clusters (Karmada's)."""
USAGES = ("authentication", "signing")

TOKEN = re.compile(r"([a-z0-9]{6})\.([a-z0-9]{16})")
TOKEN_ID = re.compile(r"[a-z0-9]{6}")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_CA_HASH = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class BootstrapToken:
    token_id: str
    token_secret: str

    def __str__(self) -> str:
        return f"{self.token_id}.{self.token_secret}"


def generate_token() -> BootstrapToken:
    """A fresh random token (6 + 16 characters of `[a-z0-9]`, as kubeadm makes them)."""
    return BootstrapToken(
        "".join(secrets.choice(_ALPHABET) for _ in range(6)),
        "".join(secrets.choice(_ALPHABET) for _ in range(16)),
    )


def parse_token(text: str) -> BootstrapToken:
    """`<id>.<secret>`, or ValueError saying what a token looks like."""
    match = TOKEN.fullmatch(text.strip())
    if match is None:
        raise ValueError(
            "a bootstrap token has the form <id>.<secret>: 6 and 16 characters of [a-z0-9] "
            "(e.g. abcdef.0123456789abcdef)"
        )
    return BootstrapToken(match.group(1), match.group(2))


def token_id_of(text: str) -> str:
    """The id of `ID` or `ID.SECRET` (what `token delete` accepts), or ValueError."""
    text = text.strip()
    if TOKEN_ID.fullmatch(text):
        return text
    return parse_token(text).token_id


def parse_duration(text: str) -> timedelta:
    """A Go duration (`24h`, `1h30m`, `90s`, `0`), as kubeadm's `--ttl` takes it; ValueError if not one."""
    try:
        return timedelta(seconds=parse_go_duration(text.strip()))
    except ValueError:
        raise ValueError(f"invalid duration {text!r} (examples: 24h, 30m, 1h30m, 90s; 0 for never)") from None


def token_secret(
    token: BootstrapToken,
    *,
    expiration: datetime | None,
    description: str = "",
    groups: tuple[str, ...] = (DEFAULT_GROUP,),
) -> dict[str, Any]:
    """The Secret that stores `token` (no expiration: it never expires)."""
    values = {
        "token-id": token.token_id,
        "token-secret": token.token_secret,
        **{f"usage-bootstrap-{usage}": "true" for usage in USAGES},
    }
    if groups:
        values["auth-extra-groups"] = ",".join(groups)
    if expiration is not None:
        values["expiration"] = expiration.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if description:
        values["description"] = description
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": SECRET_NAME_PREFIX + token.token_id, "namespace": SECRET_NAMESPACE},
        "type": SECRET_TYPE,
        "data": {key: base64.b64encode(value.encode()).decode() for key, value in values.items()},
    }


def secret_value(secret: Mapping[str, Any], key: str) -> str:
    """One value of a Secret's data, decoded ("" when absent or unreadable)."""
    raw = (secret.get("data") or {}).get(key)
    if not isinstance(raw, str):
        return ""
    try:
        return base64.b64decode(raw, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return ""


TOKEN_LIST_HEADER = ("TOKEN", "TTL", "EXPIRES", "USAGES", "DESCRIPTION", "EXTRA GROUPS")


def token_row(secret: Mapping[str, Any], now: datetime) -> tuple[str, ...] | None:
    """A `token list` row as kubeadm prints it, or None when the Secret holds no valid token."""
    if secret.get("type") != SECRET_TYPE:
        return None
    token_id, token_secret_text = secret_value(secret, "token-id"), secret_value(secret, "token-secret")
    token_text = f"{token_id}.{token_secret_text}"
    if TOKEN.fullmatch(token_text) is None:
        return None
    expiration_text = secret_value(secret, "expiration")
    if expiration_text:
        try:
            expiration = datetime.fromisoformat(expiration_text.replace("Z", "+00:00"))
        except ValueError:
            ttl, expires = "<invalid>", expiration_text
        else:
            ttl = short_human_duration(expiration - now)
            expires = expiration.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    else:
        ttl, expires = "<forever>", "<never>"
    usages = ",".join(usage for usage in USAGES if secret_value(secret, f"usage-bootstrap-{usage}") == "true")
    return (
        token_text,
        ttl,
        expires,
        usages or "<none>",
        secret_value(secret, "description") or "<none>",
        secret_value(secret, "auth-extra-groups") or "<none>",
    )


def ca_cert_hash(ca_pem: bytes) -> str:
    """`sha256:<hex>` of the CA certificate's SubjectPublicKeyInfo, kubeadm's CA pin."""
    certificate = x509.load_pem_x509_certificate(ca_pem)
    spki = certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256:" + hashlib.sha256(spki).hexdigest()


def parse_ca_hash(text: str) -> str:
    """A `--discovery-token-ca-cert-hash` value normalised to lower case, or ValueError."""
    value = text.strip().lower()
    if _CA_HASH.fullmatch(value) is None:
        raise ValueError(f"invalid CA certificate hash {text!r}: expected sha256:<64 hexadecimal digits>")
    return value


def hub_address(server_url: str) -> str:
    """`HOST:PORT` of a hub URL, what `flotilla register` takes (the port defaults to 443)."""
    rest = server_url.split("://", 1)[-1].split("/", 1)[0]
    if rest.endswith("]") or ":" not in rest.rsplit("]", 1)[-1]:
        return f"{rest}:443"
    return rest


def register_command(server_url: str, token: BootstrapToken, ca_hash: str) -> str:
    """The command a member runs to register with this hub (kubeadm's `--print-join-command`)."""
    address = hub_address(server_url)
    return f"flotilla register {address} --token {token} --discovery-token-ca-cert-hash {ca_hash}"
