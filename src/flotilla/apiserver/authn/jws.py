"""JSON Web Signatures as Kubernetes uses them: signed ServiceAccount tokens and cluster-info's detached JWS.

Two shapes, both compact serialisations (`header.payload.signature`, each part base64url without
padding):

- ServiceAccount tokens are JWTs signed with the hub's key, ES256 (ECDSA P-256, the signature is the
  raw 64-byte `r || s`, not DER) or RS256 (RSA PKCS#1 v1.5), with the key's id in the `kid` header.
- The `jws-kubeconfig-<token-id>` values of the `kube-public/cluster-info` ConfigMap are *detached*
  HS256 signatures (`header..signature`, the payload left out) keyed by a bootstrap token's secret.
  Verifiers recompute the whole string and compare, so the header bytes must be exactly
  `{"alg":"HS256","kid":"<token-id>"}` — the key order Go's JSON encoder produces.

Everything here is pure: keys come in, strings come out.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

SigningKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
VerifyingKey = ec.EllipticCurvePublicKey | rsa.RSAPublicKey

_P256_COORDINATE_BYTES = 32


class MalformedJWS(ValueError):
    """The text is not a compact JWS (wrong number of parts, bad base64url, header not JSON)."""


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Decode unpadded base64url; anything else (padding, other alphabets) is malformed."""
    if "=" in text or "+" in text or "/" in text:
        raise MalformedJWS("not unpadded base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as exc:
        raise MalformedJWS("not base64url") from exc


def algorithm_for(key: SigningKey | VerifyingKey) -> str:
    """The JWS algorithm of a key: ES256 for P-256 ECDSA, RS256 for RSA."""
    if isinstance(key, ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey):
        if not isinstance(key.curve, ec.SECP256R1):
            raise TypeError(f"ECDSA keys must use the P-256 curve for ES256, not {key.curve.name}")
        return "ES256"
    return "RS256"


def key_id(key: SigningKey | VerifyingKey) -> str:
    """kube-apiserver's key id: base64url(SHA-256(DER SubjectPublicKeyInfo)), so verifiers can pick a key."""
    public = key.public_key() if isinstance(key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) else key
    der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return b64url_encode(hashlib.sha256(der).digest())


def sign_compact(claims: dict[str, Any], key: SigningKey, kid: str) -> str:
    """A compact JWS of the claims, signed with ES256 or RS256 according to the key."""
    header = {"alg": algorithm_for(key), "kid": kid}
    signing_input = (
        b64url_encode(orjson.dumps(header))
        + "."
        + b64url_encode(orjson.dumps(claims, option=orjson.OPT_SORT_KEYS))
    )
    return signing_input + "." + b64url_encode(_sign(signing_input.encode("ascii"), key))


def _sign(data: bytes, key: SigningKey) -> bytes:
    if isinstance(key, ec.EllipticCurvePrivateKey):
        r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(_P256_COORDINATE_BYTES, "big") + s.to_bytes(_P256_COORDINATE_BYTES, "big")
    return key.sign(data, padding.PKCS1v15(), hashes.SHA256())


def split_compact(token: str) -> tuple[dict[str, Any], bytes, bytes, str]:
    """(header, payload bytes, signature, signing input) of a compact JWS, nothing verified yet."""
    parts = token.split(".")
    if len(parts) != 3:
        raise MalformedJWS("a compact JWS has three dot-separated parts")
    header_part, payload_part, signature_part = parts
    try:
        header = orjson.loads(b64url_decode(header_part))
    except orjson.JSONDecodeError as exc:
        raise MalformedJWS("the header is not JSON") from exc
    if not isinstance(header, dict):
        raise MalformedJWS("the header is not a JSON object")
    return header, b64url_decode(payload_part), b64url_decode(signature_part), f"{header_part}.{payload_part}"


def verify_signature(signing_input: str, signature: bytes, algorithm: str, key: VerifyingKey) -> bool:
    """Whether `signature` over `signing_input` verifies with the key under the named algorithm."""
    data = signing_input.encode("ascii")
    try:
        if algorithm == "ES256" and isinstance(key, ec.EllipticCurvePublicKey):
            if len(signature) != 2 * _P256_COORDINATE_BYTES:
                return False
            r = int.from_bytes(signature[:_P256_COORDINATE_BYTES], "big")
            s = int.from_bytes(signature[_P256_COORDINATE_BYTES:], "big")
            key.verify(encode_dss_signature(r, s), data, ec.ECDSA(hashes.SHA256()))
            return True
        if algorithm == "RS256" and isinstance(key, rsa.RSAPublicKey):
            key.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
            return True
    except (InvalidSignature, ValueError):
        return False
    return False


def detached_signature(content: str, token_id: str, token_secret: str) -> str:
    """The detached HS256 JWS of `content` (cluster-info's kubeconfig) keyed by a bootstrap token."""
    header = b64url_encode(b'{"alg":"HS256","kid":"' + token_id.encode() + b'"}')
    signing_input = f"{header}.{b64url_encode(content.encode())}"
    mac = hmac.new(token_secret.encode(), signing_input.encode("ascii"), hashlib.sha256).digest()
    return f"{header}..{b64url_encode(mac)}"


def detached_signature_is_valid(signature: str, content: str, token_id: str, token_secret: str) -> bool:
    """Verify as kubeadm does: recompute the detached JWS and compare the strings in constant time."""
    expected = detached_signature(content, token_id, token_secret)
    return hmac.compare_digest(expected.encode(), signature.encode())
