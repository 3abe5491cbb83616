"""ServiceAccount tokens: JWTs the hub signs (TokenRequest) and accepts back as bearer tokens.

The hub's signing key lives in `<data-dir>/pki/sa.key` (public half in `sa.pub`), created on first
start as ECDSA P-256 (ES256); an RSA key put there instead signs RS256. Tokens carry kube's claims:
`iss` (https://kubernetes.default.svc.cluster.local), `sub` (`system:serviceaccount:<ns>:<name>`),
`aud`, `exp`, `iat`, `nbf`, `jti` and `kubernetes.io` with the namespace, the ServiceAccount's name
and uid, and the object the token is bound to (a Pod, Secret or Node).

A token is accepted when its signature verifies, it has not expired (with kube's one-minute clock
leeway), one of its audiences is one the caller expects (by default the issuer URL, kube's default
`--api-audiences`), and the ServiceAccount — and the bound object, if any — still exists with the
uid the token names. Deleting the ServiceAccount (or the pod a token is bound to) revokes its tokens.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import timestamp
from flotilla.apiserver.authn import jws
from flotilla.apiserver.authn.bearer import InvalidToken, TokenResult
from flotilla.apiserver.authn.lookup import NODE, POD, SECRET, SERVICE_ACCOUNT, ObjectLookup
from flotilla.apiserver.users import UserInfo

ISSUER = "https://kubernetes.default.svc.cluster.local"
API_AUDIENCES = (ISSUER,)
CLOCK_LEEWAY = timedelta(minutes=1)
"""Tolerance for clock skew on exp/nbf/iat, and how long a deleted object's tokens keep working."""
SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"
USERNAME_PREFIX = "system:serviceaccount:"
EXTRA_PREFIX = "authentication.kubernetes.io/"

Clock = Callable[[], datetime]


def service_account_username(namespace: str, name: str) -> str:
    return f"{USERNAME_PREFIX}{namespace}:{name}"


def service_account_groups(namespace: str) -> tuple[str, ...]:
    return (SERVICE_ACCOUNTS_GROUP, f"{SERVICE_ACCOUNTS_GROUP}:{namespace}")


# -- the signing key ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServiceAccountKey:
    private_key: jws.SigningKey
    key_id: str

    @property
    def public_key(self) -> jws.VerifyingKey:
        return self.private_key.public_key()


def load_or_create_key(directory: Path) -> ServiceAccountKey:
    """Read `sa.key` under `directory`, creating it (and `sa.pub`) as a P-256 key on first use."""
    key_path, public_path = directory / "sa.key", directory / "sa.pub"
    if key_path.exists():
        loaded = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        if not isinstance(loaded, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
            raise TypeError(f"{key_path} must hold an ECDSA P-256 or RSA private key")
        private_key: jws.SigningKey = loaded
        jws.algorithm_for(private_key)  # refuses curves other than P-256
    else:
        directory.mkdir(parents=True, exist_ok=True)
        private_key = ec.generate_private_key(ec.SECP256R1())
        pem = private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        _write_atomically(key_path, pem, 0o600)
    if not public_path.exists():
        public_pem = private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        _write_atomically(public_path, public_pem, 0o644)
    return ServiceAccountKey(private_key, jws.key_id(private_key))


def _write_atomically(path: Path, data: bytes, mode: int) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


# -- issuing -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ObjectReference:
    name: str
    uid: str = ""

    def claim(self) -> dict[str, str]:
        return {"name": self.name, "uid": self.uid} if self.uid else {"name": self.name}


@dataclass(frozen=True, slots=True)
class Binding:
    """What a token is bound to besides its ServiceAccount: a Pod (and its node), a Secret or a Node."""

    pod: ObjectReference | None = None
    secret: ObjectReference | None = None
    node: ObjectReference | None = None


def token_claims(
    service_account: Mapping[str, Any],
    audiences: Sequence[str],
    expiration_seconds: int,
    now: datetime,
    binding: Binding | None = None,
    *,
    issuer: str = ISSUER,
    token_id: str | None = None,
) -> dict[str, Any]:
    """The claims of a token for a ServiceAccount object, as kube-apiserver 1.32 writes them."""
    meta = service_account.get("metadata") or {}
    namespace, name = str(meta.get("namespace", "")), str(meta.get("name", ""))
    issued = int(now.timestamp())
    private: dict[str, Any] = {
        "namespace": namespace,
        "serviceaccount": {"name": name, "uid": str(meta.get("uid", ""))},
    }
    binding = binding or Binding()
    for key, ref in (("pod", binding.pod), ("secret", binding.secret), ("node", binding.node)):
        if ref is not None:
            private[key] = ref.claim()
    return {
        "aud": list(audiences),
        "exp": issued + expiration_seconds,
        "iat": issued,
        "iss": issuer,
        "jti": token_id or str(uuid.uuid4()),
        "kubernetes.io": private,
        "nbf": issued,
        "sub": service_account_username(namespace, name),
    }


class TokenIssuer:
    """Signs ServiceAccount tokens with the hub's key (the TokenRequest API uses it)."""

    def __init__(
        self, key: ServiceAccountKey, *, issuer: str = ISSUER, api_audiences: Sequence[str] = API_AUDIENCES
    ) -> None:
        self.key = key
        self.issuer = issuer
        self.api_audiences = tuple(api_audiences)

    def issue(
        self,
        service_account: Mapping[str, Any],
        audiences: Sequence[str],
        expiration_seconds: int,
        now: datetime,
        binding: Binding | None = None,
    ) -> str:
        claims = token_claims(
            service_account,
            audiences or self.api_audiences,
            expiration_seconds,
            now,
            binding,
            issuer=self.issuer,
        )
        return jws.sign_compact(claims, self.key.private_key, self.key.key_id)


# -- validating --------------------------------------------------------------------------------------


def unverified_issuer(token: str) -> str | None:
    """The `iss` of a JWT before anything is verified — only to tell whether the token is ours."""
    parts = token.split(".")
    if len(parts) != 3 or token.lstrip().startswith("{"):
        return None
    try:
        payload = orjson.loads(jws.b64url_decode(parts[1]))
    except (jws.MalformedJWS, orjson.JSONDecodeError):
        return None
    issuer = payload.get("iss") if isinstance(payload, dict) else None
    return issuer if isinstance(issuer, str) else None


class ServiceAccountTokenAuthenticator:
    """Accepts the hub's ServiceAccount tokens (any token with another issuer is not ours)."""

    def __init__(
        self,
        keys: Sequence[jws.VerifyingKey],
        lookup: ObjectLookup,
        clock: Clock,
        *,
        issuer: str = ISSUER,
        api_audiences: Sequence[str] = API_AUDIENCES,
    ) -> None:
        self.keys = {jws.key_id(key): key for key in keys}
        self.lookup = lookup
        self.clock = clock
        self.issuer = issuer
        self.api_audiences = tuple(api_audiences)

    def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        if unverified_issuer(token) != self.issuer:
            return None
        try:
            header, payload, signature, signing_input = jws.split_compact(token)
            claims = orjson.loads(payload)
        except (jws.MalformedJWS, orjson.JSONDecodeError):
            return None
        self._verify(header, signature, signing_input)
        if not isinstance(claims, dict):
            raise InvalidToken("service account token claims could not be validated")
        valid_for = self._audiences(claims, audiences)
        now = self.clock()
        _check_times(claims, now)
        return TokenResult(self._user(claims, now), valid_for)

    def _verify(self, header: dict[str, Any], signature: bytes, signing_input: str) -> None:
        kid = header.get("kid")
        if isinstance(kid, str) and kid:
            candidates = [self.keys[kid]] if kid in self.keys else []
        else:
            candidates = list(self.keys.values())
        if not candidates:
            raise InvalidToken("invalid signature, no keys found")
        algorithm = header.get("alg")
        if not isinstance(algorithm, str) or not any(
            jws.verify_signature(signing_input, signature, algorithm, key) for key in candidates
        ):
            raise InvalidToken("invalid signature")

    def _audiences(self, claims: dict[str, Any], requested: Sequence[str]) -> tuple[str, ...]:
        raw = claims.get("aud")
        token_audiences = (
            (raw,) if isinstance(raw, str) else tuple(a for a in raw or () if isinstance(a, str))
        )
        token_audiences = token_audiences or self.api_audiences
        wanted = tuple(requested) or self.api_audiences
        valid = tuple(a for a in token_audiences if a in wanted)
        if not valid:
            raise InvalidToken(
                f"token audiences {_go_strings(token_audiences)} is invalid for the target audiences "
                f"{_go_strings(wanted)}"
            )
        return valid

    def _user(self, claims: dict[str, Any], now: datetime) -> UserInfo:
        private = claims.get("kubernetes.io")
        if not isinstance(private, dict):
            raise InvalidToken("service account token claims could not be validated")
        namespace = private.get("namespace")
        account = _reference(private.get("serviceaccount"))
        if not isinstance(namespace, str) or not namespace or account is None:
            raise InvalidToken("service account token claims could not be validated")
        deleted_before = now - CLOCK_LEEWAY
        found = self.lookup(SERVICE_ACCOUNT, namespace, account.name)
        if found is None:
            raise InvalidToken(f'serviceaccounts "{account.name}" not found')
        if _deleted_before(found, deleted_before):
            raise InvalidToken(f"service account {namespace}/{account.name} has been deleted")
        uid = _uid(found)
        if uid != account.uid:
            raise InvalidToken(f"service account UID ({uid}) does not match claim ({account.uid})")
        extra: dict[str, list[str]] = {}
        secret = _reference(private.get("secret"))
        if secret is not None:
            self._check_bound(
                SECRET, namespace, secret, deleted_before, "secret", "service account secret ref"
            )
        pod = _reference(private.get("pod"))
        node = _reference(private.get("node"))
        if pod is not None:
            self._check_bound(POD, namespace, pod, deleted_before, "pod", "service account pod ref")
            extra[EXTRA_PREFIX + "pod-name"] = [pod.name]
            extra[EXTRA_PREFIX + "pod-uid"] = [pod.uid]
        elif node is not None:
            self._check_bound(NODE, "", node, deleted_before, "node", "service account node ref")
        if node is not None:
            extra[EXTRA_PREFIX + "node-name"] = [node.name]
            if node.uid:
                extra[EXTRA_PREFIX + "node-uid"] = [node.uid]
        token_id = claims.get("jti")
        if isinstance(token_id, str) and token_id:
            extra[EXTRA_PREFIX + "credential-id"] = [f"JTI={token_id}"]
        return UserInfo(
            service_account_username(namespace, account.name), service_account_groups(namespace), uid, extra
        )

    def _check_bound(
        self,
        kind: GroupVersionKind,
        namespace: str,
        ref: ObjectReference,
        deleted_before: datetime,
        noun: str,
        claim: str,
    ) -> None:
        found = self.lookup(kind, namespace, ref.name)
        if found is None or _deleted_before(found, deleted_before):
            raise InvalidToken("service account token has been invalidated")
        uid = _uid(found)
        if uid != ref.uid:
            raise InvalidToken(f"{noun} UID ({uid}) does not match {claim} claim ({ref.uid})")


def _check_times(claims: dict[str, Any], now: datetime) -> None:
    """kube's (go-jose's) time checks, each with the clock leeway."""
    moment = now.timestamp()
    leeway = CLOCK_LEEWAY.total_seconds()
    not_before, expiry, issued = (_numeric_date(claims.get(k)) for k in ("nbf", "exp", "iat"))
    if not_before is not None and moment + leeway < not_before:
        raise InvalidToken("service account token is not valid yet")
    if expiry is not None and moment - leeway > expiry:
        raise InvalidToken("service account token has expired")
    if issued is not None and moment + leeway < issued:
        raise InvalidToken("service account token is issued in the future")


def _numeric_date(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _reference(value: Any) -> ObjectReference | None:
    if not isinstance(value, dict):
        return None
    name, uid = value.get("name"), value.get("uid", "")
    if not isinstance(name, str) or not name or not isinstance(uid, str):
        return None
    return ObjectReference(name, uid)


def _uid(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid", ""))


def _deleted_before(obj: Mapping[str, Any], moment: datetime) -> bool:
    stamp = (obj.get("metadata") or {}).get("deletionTimestamp")
    deleted = timestamp(stamp) if isinstance(stamp, str) else None
    return deleted is not None and deleted.tzinfo is not None and deleted < moment


def _go_strings(values: Sequence[str]) -> str:
    """A string list as Go's %q prints it: ["a" "b"]."""
    return "[" + " ".join(orjson.dumps(v).decode() for v in values) + "]"
