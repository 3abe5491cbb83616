"""ServiceAccount tokens: the claims issued, and every check that accepts or refuses one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from flotilla.apiserver.authn import jws
from flotilla.apiserver.authn.bearer import InvalidToken
from flotilla.apiserver.authn.serviceaccounts import (
    ISSUER,
    Binding,
    ObjectReference,
    ServiceAccountKey,
    ServiceAccountTokenAuthenticator,
    TokenIssuer,
    load_or_create_key,
)
from tests.support.clock import ManualClock
from tests.unit.apiserver.authn.objects import Objects, pod, service_account

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def key() -> ServiceAccountKey:
    private = ec.generate_private_key(ec.SECP256R1())
    return ServiceAccountKey(private, jws.key_id(private))


@pytest.fixture
def objects() -> Objects:
    found = Objects()
    found.add(service_account())
    return found


def authenticator(
    key: ServiceAccountKey, objects: Objects, clock: ManualClock
) -> ServiceAccountTokenAuthenticator:
    return ServiceAccountTokenAuthenticator([key.public_key], objects, clock)


def issue(
    key: ServiceAccountKey,
    objects: Objects,
    seconds: int = 600,
    *,
    audiences: tuple[str, ...] = (),
    binding: Binding | None = None,
) -> str:
    account = objects.items[("ServiceAccount", "default", "robot")]
    return TokenIssuer(key).issue(account, audiences, seconds, NOW, binding)


def test_issued_claims_follow_kube(key: ServiceAccountKey, objects: Objects) -> None:
    """iss, sub, aud (default the issuer), exp, iat, nbf, jti and kubernetes.io are present."""
    _, payload, _, _ = jws.split_compact(issue(key, objects, 3600))
    claims = orjson.loads(payload)
    assert claims["iss"] == ISSUER
    assert claims["sub"] == "system:serviceaccount:default:robot"
    assert claims["aud"] == [ISSUER]
    assert claims["iat"] == claims["nbf"] == int(NOW.timestamp())
    assert claims["exp"] == int(NOW.timestamp()) + 3600
    assert claims["jti"]
    assert claims["kubernetes.io"] == {
        "namespace": "default",
        "serviceaccount": {"name": "robot", "uid": "sa-uid"},
    }


def test_a_valid_token_authenticates_as_the_service_account(key: ServiceAccountKey, objects: Objects) -> None:
    """The user is system:serviceaccount:<ns>:<name> in the service-account groups, with its uid."""
    result = authenticator(key, objects, ManualClock(NOW + timedelta(minutes=5))).authenticate_token(
        issue(key, objects), []
    )
    assert result is not None
    assert result.user.username == "system:serviceaccount:default:robot"
    assert result.user.groups == ("system:serviceaccounts", "system:serviceaccounts:default")
    assert result.user.uid == "sa-uid"
    assert result.audiences == (ISSUER,)
    assert result.user.extra["authentication.kubernetes.io/credential-id"][0].startswith("JTI=")


def test_expiry_is_checked_against_the_clock_with_one_minute_leeway(
    key: ServiceAccountKey, objects: Objects
) -> None:
    """A 600 s token works at 600 s + 59 s and is refused as expired at 600 s + 61 s."""
    token = issue(key, objects, 600)
    clock = ManualClock(NOW + timedelta(seconds=659))
    assert authenticator(key, objects, clock).authenticate_token(token, []) is not None
    clock.advance(2)
    with pytest.raises(InvalidToken, match="service account token has expired"):
        authenticator(key, objects, clock).authenticate_token(token, [])


def test_a_token_used_before_it_is_valid_is_refused(key: ServiceAccountKey, objects: Objects) -> None:
    """nbf more than a minute ahead of the clock is refused."""
    with pytest.raises(InvalidToken, match="not valid yet"):
        authenticator(key, objects, ManualClock(NOW - timedelta(minutes=2))).authenticate_token(
            issue(key, objects), []
        )


def test_audiences_must_intersect(key: ServiceAccountKey, objects: Objects) -> None:
    """A token for vault is refused by the API and accepted when vault is the audience asked for."""
    token = issue(key, objects, audiences=("vault",))
    check = authenticator(key, objects, ManualClock(NOW))
    with pytest.raises(
        InvalidToken, match=r'token audiences \["vault"\] is invalid for the target audiences'
    ):
        check.authenticate_token(token, [])
    result = check.authenticate_token(token, ["vault", "other"])
    assert result is not None and result.audiences == ("vault",)


def test_deleting_or_recreating_the_service_account_revokes_its_tokens(
    key: ServiceAccountKey, objects: Objects
) -> None:
    """A missing account, one recreated with another uid, or one deleted over a minute ago fails."""
    token = issue(key, objects)
    check = authenticator(key, objects, ManualClock(NOW))
    objects.add(service_account(uid="other"))
    with pytest.raises(InvalidToken, match=r"service account UID \(other\) does not match claim \(sa-uid\)"):
        check.authenticate_token(token, [])
    objects.remove("ServiceAccount", "default", "robot")
    with pytest.raises(InvalidToken, match='serviceaccounts "robot" not found'):
        check.authenticate_token(token, [])
    deleting = service_account()
    deleting["metadata"]["deletionTimestamp"] = "2026-06-01T11:58:00Z"
    objects.add(deleting)
    with pytest.raises(InvalidToken, match="has been deleted"):
        check.authenticate_token(token, [])


def test_pod_bound_tokens_die_with_the_pod(key: ServiceAccountKey, objects: Objects) -> None:
    """A pod-bound token names the pod in extra, and fails once the pod is gone or replaced."""
    objects.add(pod("web-1", node="node-a"))
    binding = Binding(pod=ObjectReference("web-1", "pod-uid"), node=ObjectReference("node-a", ""))
    token = issue(key, objects, binding=binding)
    check = authenticator(key, objects, ManualClock(NOW))
    result = check.authenticate_token(token, [])
    assert result is not None
    assert result.user.extra["authentication.kubernetes.io/pod-name"] == ["web-1"]
    assert result.user.extra["authentication.kubernetes.io/node-name"] == ["node-a"]
    objects.add(pod("web-1", uid="new-uid"))
    with pytest.raises(InvalidToken, match=r"pod UID \(new-uid\) does not match"):
        check.authenticate_token(token, [])
    objects.remove("Pod", "default", "web-1")
    with pytest.raises(InvalidToken, match="has been invalidated"):
        check.authenticate_token(token, [])


def test_a_token_signed_by_another_key_is_refused(key: ServiceAccountKey, objects: Objects) -> None:
    """The signature is checked: a token from another hub's key fails."""
    other = ec.generate_private_key(ec.SECP256R1())
    forged = TokenIssuer(ServiceAccountKey(other, jws.key_id(key.private_key))).issue(
        service_account(), [], 600, NOW
    )
    with pytest.raises(InvalidToken, match="invalid signature"):
        authenticator(key, objects, ManualClock(NOW)).authenticate_token(forged, [])


def test_tokens_of_other_issuers_and_non_jwts_are_not_ours(key: ServiceAccountKey, objects: Objects) -> None:
    """Other issuers, opaque strings and JSON are left to other authenticators."""
    check = authenticator(key, objects, ManualClock(NOW))
    other_issuer = jws.sign_compact({"iss": "https://elsewhere"}, key.private_key, key.key_id)
    for token in (other_issuer, "abcdef.0123456789abcdef", '{"iss": "x"}', "a.b.c"):
        assert check.authenticate_token(token, []) is None


def test_the_key_is_created_once_and_reloaded(tmp_path: Path) -> None:
    """sa.key (0600) and sa.pub are written on first use; later loads return the same key."""
    first = load_or_create_key(tmp_path)
    assert (tmp_path / "sa.key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "sa.pub").read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    assert load_or_create_key(tmp_path).key_id == first.key_id
