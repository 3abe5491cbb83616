"""Impersonation headers: what they ask to act as, who may, and the user a request then runs as."""

from __future__ import annotations

import pytest
from multidict import CIMultiDict, CIMultiDictProxy

from flotilla.apiserver import errors
from flotilla.apiserver.authn.impersonation import (
    ImpersonationRequest,
    asks_to_impersonate,
    impersonate,
    impersonation_requests,
)
from flotilla.apiserver.authz import AuthorizationAttributes, Decision
from flotilla.apiserver.users import UserInfo

ADMIN = UserInfo("admin", ("system:masters", "system:authenticated"))


def headers(*pairs: tuple[str, str]) -> CIMultiDictProxy[str]:
    return CIMultiDictProxy(CIMultiDict(pairs))


class Allowing:
    """An authorizer that allows what `allowed` lists (resource, name) and records every question."""

    def __init__(self, *allowed: tuple[str, str]) -> None:
        self.allowed = set(allowed)
        self.asked: list[AuthorizationAttributes] = []

    def authorize(self, attributes: AuthorizationAttributes) -> Decision:
        self.asked.append(attributes)
        return Decision((attributes.resource, attributes.name) in self.allowed)


def test_requests_without_impersonation_headers_are_left_alone() -> None:
    assert not asks_to_impersonate(headers(("Accept", "application/json")))
    assert impersonate(headers(), ADMIN, Allowing()) == (ADMIN, None)
    assert impersonate(headers(("Impersonate-User", "")), ADMIN, Allowing()) == (ADMIN, None)


def test_each_header_is_one_thing_to_be_allowed_to_impersonate() -> None:
    wanted = impersonation_requests(
        headers(
            ("Impersonate-User", "system:serviceaccount:team:builder"),
            ("Impersonate-Group", "devs"),
            ("Impersonate-Group", "ops"),
            ("Impersonate-Uid", "42"),
            ("Impersonate-Extra-Scopes%2Fview", "read"),
        )
    )
    assert wanted == [
        ImpersonationRequest("serviceaccounts", "builder", namespace="team"),
        ImpersonationRequest("groups", "devs"),
        ImpersonationRequest("groups", "ops"),
        ImpersonationRequest("userextras", "read", "authentication.k8s.io", subresource="scopes/view"),
        ImpersonationRequest("uids", "42", "authentication.k8s.io"),
    ]


@pytest.mark.parametrize(
    "pairs",
    [
        (("Impersonate-User", ""), ("Impersonate-Group", "system:masters")),
        (("Impersonate-Group", "system:masters"),),
        (("Impersonate-Uid", "1"),),
        (("Impersonate-Extra-Scopes", "x"),),
    ],
)
def test_groups_extra_or_a_uid_without_a_user_is_400(pairs: tuple[tuple[str, str], ...]) -> None:
    with pytest.raises(
        errors.BadRequest, match="without impersonating a user: set the Impersonate-User header"
    ):
        impersonation_requests(headers(*pairs))


def test_the_first_thing_not_allowed_is_reported_and_the_requester_kept() -> None:
    authorizer = Allowing(("users", "alice"))
    user, denied = impersonate(
        headers(("Impersonate-User", "alice"), ("Impersonate-Group", "system:masters")), ADMIN, authorizer
    )
    assert user == ADMIN
    assert denied is not None and (denied.verb, denied.resource, denied.name) == (
        "impersonate",
        "groups",
        "system:masters",
    )
    assert all(asked.user == ADMIN for asked in authorizer.asked)


def test_the_impersonated_user_gets_kube_s_groups() -> None:
    everything = Allowing(
        ("users", "alice"), ("groups", "devs"), ("serviceaccounts", "builder"), ("users", "system:anonymous")
    )
    alice, _ = impersonate(
        headers(("Impersonate-User", "alice"), ("Impersonate-Group", "devs")), ADMIN, everything
    )
    assert alice == UserInfo("alice", ("devs", "system:authenticated"))
    builder, _ = impersonate(
        headers(("Impersonate-User", "system:serviceaccount:team:builder")), ADMIN, everything
    )
    assert builder.groups == ("system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated")
    anonymous, _ = impersonate(headers(("Impersonate-User", "system:anonymous")), ADMIN, everything)
    assert anonymous.groups == ("system:unauthenticated",)


def test_header_bytes_that_are_not_utf8_read_as_replacement_characters() -> None:
    (wanted,) = impersonation_requests(headers(("Impersonate-User", "al\udcffice")))
    assert wanted.name == "al\ufffdice"
