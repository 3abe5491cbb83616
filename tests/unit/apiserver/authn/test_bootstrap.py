"""Bootstrap tokens: reading their Secrets and authenticating as system:bootstrap:<id>."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flotilla.apiserver.authn.bootstrap import BootstrapTokenAuthenticator, token_from_secret
from tests.unit.apiserver.authn.objects import Objects, bootstrap_secret

NOW = datetime(2026, 6, 1, tzinfo=UTC)
TOKEN = "abcdef.0123456789abcdef"


def authenticate(objects: Objects, token: str = TOKEN, now: datetime = NOW) -> str | None:
    result = BootstrapTokenAuthenticator(objects, lambda: now).authenticate_token(token, [])
    return None if result is None else f"{result.user.username} {','.join(result.user.groups)}"


def with_secret(**data: str) -> Objects:
    objects = Objects()
    objects.add(bootstrap_secret("abcdef", "0123456789abcdef", **data))
    return objects


def test_a_valid_token_authenticates_with_its_extra_groups() -> None:
    """The user is system:bootstrap:<id> in system:bootstrappers plus auth-extra-groups."""
    objects = with_secret(
        **{
            "usage-bootstrap-authentication": "true",
            "auth-extra-groups": "system:bootstrappers:karmada:agents",
            "expiration": "2026-06-02T00:00:00Z",
        }
    )
    assert authenticate(objects) == (
        "system:bootstrap:abcdef system:bootstrappers,system:bootstrappers:karmada:agents"
    )


@pytest.mark.parametrize(
    ("data", "token", "reason"),
    [
        ({"usage-bootstrap-authentication": "true"}, "abcdef.0123456789abcdeX", "wrong secret"),
        ({"usage-bootstrap-authentication": "true"}, "abcdeg.0123456789abcdef", "no such Secret"),
        ({"usage-bootstrap-authentication": "true"}, "abcdef.0123456789abcdef\n", "trailing newline"),
        ({}, TOKEN, "no authentication usage"),
        ({"usage-bootstrap-authentication": "yes"}, TOKEN, "usage not exactly true"),
        (
            {"usage-bootstrap-authentication": "true", "expiration": "2026-05-31T23:59:59Z"},
            TOKEN,
            "expired",
        ),
        ({"usage-bootstrap-authentication": "true", "expiration": "tomorrow"}, TOKEN, "bad expiration"),
        (
            {"usage-bootstrap-authentication": "true", "auth-extra-groups": "system:masters"},
            TOKEN,
            "a group outside system:bootstrappers:",
        ),
    ],
)
def test_tokens_failing_a_check_are_not_recognised(data: dict[str, str], token: str, reason: str) -> None:
    """Every failed check leaves the token unrecognised (the union then answers 401)."""
    assert authenticate(with_secret(**data), token) is None, reason


def test_a_secret_being_deleted_or_of_another_type_does_not_authenticate() -> None:
    """A deletionTimestamp or a Secret type other than bootstrap.kubernetes.io/token refuses the token."""
    objects = with_secret(**{"usage-bootstrap-authentication": "true"})
    secret = objects.items[("Secret", "kube-system", "bootstrap-token-abcdef")]
    secret["metadata"]["deletionTimestamp"] = "2026-06-01T00:00:00Z"
    assert authenticate(objects) is None
    del secret["metadata"]["deletionTimestamp"]
    secret["type"] = "Opaque"
    assert authenticate(objects) is None


def test_secrets_are_parsed_with_usages_and_expiration() -> None:
    """Usages set to "true" are kept; an unreadable expiration counts as already expired."""
    token = token_from_secret(
        bootstrap_secret(
            "abcdef",
            "0123456789abcdef",
            **{"usage-bootstrap-signing": "true", "usage-bootstrap-authentication": "false"},
        )
    )
    assert token is not None
    assert token.usages == frozenset({"signing"})
    assert token.expiration is None and not token.expired(NOW)
    broken = token_from_secret(bootstrap_secret("abcdef", "0123456789abcdef", expiration="soon"))
    assert broken is not None and broken.expired(NOW)
    renamed = bootstrap_secret("abcdef", "0123456789abcdef")
    renamed["metadata"]["name"] = "bootstrap-token-zzzzzz"
    assert token_from_secret(renamed) is None
