"""Access and identity reviews, answered by the running server's authorizer and authenticator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.authn.bearer import (
    InvalidToken,
    TokenAuthenticators,
    TokenResult,
)
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.http.handlers.reviews import (
    REVIEW_RESOURCES,
    local_subject_access_review,
    self_subject_access_review,
    self_subject_review,
    self_subject_rules_review,
    subject_access_review,
    token_review,
)
from flotilla.apiserver.users import UserInfo
from tests.unit.apiserver.authz.policy import POD_READER, RBAC, binding, role, user

JANE = UserInfo("jane", ("system:authenticated",))
ADMIN = UserInfo("admin", ("system:masters", "system:authenticated"))
NAMESPACE = GroupVersionKind("", "v1", "Namespace")


async def grant_jane_pod_reading(api: EmbeddedAPI, namespace: str = "a") -> None:
    client = api.client("test")
    await client.create(NAMESPACE, {"metadata": {"name": namespace}})
    rbac = "rbac.authorization.k8s.io/v1"
    await client.create(
        GroupVersionKind(RBAC, "v1", "Role"),
        {"apiVersion": rbac, **role("pod-reader", namespace, POD_READER)},
    )
    await client.create(
        GroupVersionKind(RBAC, "v1", "RoleBinding"),
        {"apiVersion": rbac, **binding("jane", namespace, "Role", "pod-reader", user("jane"))},
    )


def pods(verb: str, namespace: str) -> dict[str, Any]:
    return {"resourceAttributes": {"verb": verb, "resource": "pods", "namespace": namespace}}


def review(spec: dict[str, Any], namespace: str = "") -> dict[str, Any]:
    meta = {"namespace": namespace} if namespace else {}
    return {"kind": "SubjectAccessReview", "metadata": meta, "spec": spec}


async def test_self_access_review_answers_yes_where_bound_and_no_elsewhere(api: EmbeddedAPI) -> None:
    """A binding created a moment ago is in force, in its namespace only, with the reason."""
    await grant_jane_pod_reading(api)
    allowed = await self_subject_access_review(api.context, review(pods("list", "a")), JANE)
    assert allowed == {
        "allowed": True,
        "reason": 'RBAC: allowed by RoleBinding "jane/a" of Role "pod-reader" to User "jane"',
    }
    assert await self_subject_access_review(api.context, review(pods("list", "b")), JANE) == {
        "allowed": False
    }


async def test_non_resource_questions_are_answered_too(api: EmbeddedAPI) -> None:
    """can-i get /apis: yes for any user (system:discovery); /metrics: no."""
    spec = {"nonResourceAttributes": {"verb": "get", "path": "/apis"}}
    assert (await self_subject_access_review(api.context, review(spec), JANE))["allowed"] is True
    spec = {"nonResourceAttributes": {"verb": "get", "path": "/metrics"}}
    assert (await self_subject_access_review(api.context, review(spec), JANE))["allowed"] is False


async def test_a_review_needs_exactly_one_kind_of_attributes(api: EmbeddedAPI) -> None:
    """Neither or both: 422 with kube's wording."""
    with pytest.raises(errors.Invalid, match="exactly one of nonResourceAttributes or resourceAttributes"):
        await self_subject_access_review(api.context, review({}), JANE)
    both = {**pods("get", "a"), "nonResourceAttributes": {"verb": "get", "path": "/"}}
    with pytest.raises(errors.Invalid, match="cannot be specified in combination with resourceAttributes"):
        await self_subject_access_review(api.context, review(both), JANE)


async def test_subject_access_review_asks_for_the_named_user_and_needs_one(api: EmbeddedAPI) -> None:
    """The spec's user and groups are judged, not the requester's; neither given is 422."""
    await grant_jane_pod_reading(api)
    spec = {**pods("get", "a"), "user": "jane"}
    assert (await subject_access_review(api.context, review(spec), ADMIN))["allowed"] is True
    spec = {**pods("get", "a"), "user": "bob", "groups": ["system:authenticated"]}
    assert (await subject_access_review(api.context, review(spec), ADMIN))["allowed"] is False
    with pytest.raises(errors.Invalid, match="at least one of user or group must be specified"):
        await subject_access_review(api.context, review(pods("get", "a")), ADMIN)


async def test_local_subject_access_review_stays_in_its_namespace(api: EmbeddedAPI) -> None:
    """The attributes' namespace must be the URL's; non-resource questions are refused."""
    await grant_jane_pod_reading(api)
    local = review({**pods("get", "a"), "user": "jane"}, namespace="a")
    assert (await local_subject_access_review(api.context, local, ADMIN))["allowed"] is True
    elsewhere = review({**pods("get", "b"), "user": "jane"}, namespace="a")
    with pytest.raises(errors.Invalid, match=r"must match metadata\.namespace"):
        await local_subject_access_review(api.context, elsewhere, ADMIN)


async def test_rules_review_lists_what_the_user_holds_in_the_namespace(api: EmbeddedAPI) -> None:
    """jane's pod reading in a, plus the cluster-wide defaults every user has."""
    await grant_jane_pod_reading(api)
    status = await self_subject_rules_review(api.context, {"spec": {"namespace": "a"}}, JANE)
    assert {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]} in status["resourceRules"]
    assert any("/version" in rule["nonResourceURLs"] for rule in status["nonResourceRules"])
    assert status["incomplete"] is False
    elsewhere = await self_subject_rules_review(api.context, {"spec": {"namespace": "b"}}, JANE)
    assert {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]} not in elsewhere[
        "resourceRules"
    ]
    with pytest.raises(errors.BadRequest):
        await self_subject_rules_review(api.context, {"spec": {}}, JANE)


async def test_self_subject_review_tells_who_is_asking(api: EmbeddedAPI) -> None:
    """`kubectl auth whoami`: the requester's name and groups."""
    assert await self_subject_review(api.context, {}, JANE) == {
        "userInfo": {"username": "jane", "groups": ["system:authenticated"]}
    }


class Tokens:
    """A token kind: "good" is jane (for any audience asked), "expired" is refused."""

    def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        if token == "expired":
            raise InvalidToken("token has expired")
        return TokenResult(JANE, tuple(audiences)) if token == "good" else None


async def test_token_review_authenticates_through_the_servers_token_authenticators(api: EmbeddedAPI) -> None:
    """A good token names its user and audiences; a bad one is refused with the reason."""
    plain = await token_review(api.context, {"spec": {"token": "good"}}, ADMIN)
    assert "error" in plain and "authenticated" not in plain
    api.context.token_authenticators = TokenAuthenticators([Tokens()])
    good = await token_review(api.context, {"spec": {"token": "good", "audiences": ["x"]}}, ADMIN)
    assert good == {"authenticated": True, "user": JANE.to_json(), "audiences": ["x"]}
    assert await token_review(api.context, {"spec": {"token": "expired"}}, ADMIN) == {
        "user": {},
        "error": "token has expired",
    }
    with pytest.raises(errors.BadRequest):
        await token_review(api.context, {"spec": {}}, ADMIN)


def test_every_review_resource_is_served_create_only(api: EmbeddedAPI) -> None:
    """The registry serves each review kind with the single verb create."""
    for resource in REVIEW_RESOURCES:
        served = api.registry.lookup(resource.group, "v1", resource.resource)
        assert served is not None and served.type.verbs == ("create",)
