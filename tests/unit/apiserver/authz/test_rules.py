"""RBAC rule matching and coverage, as tables of rules and requests."""

from __future__ import annotations

import pytest

from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.authz.rules import (
    FULL_AUTHORITY,
    PolicyRule,
    allows,
    breakdown,
    compact,
    rules_from_json,
    uncovered,
)
from flotilla.apiserver.users import UserInfo

JANE = UserInfo("jane", ("system:authenticated",))


def ask(verb: str, resource: str, name: str = "", group: str = "") -> AuthorizationAttributes:
    """A resource request; `resource` may be `pods/log` for a subresource."""
    plural, _, subresource = resource.partition("/")
    return AuthorizationAttributes(JANE, verb, True, group, "v1", plural, subresource, "a", name)


def path_request(verb: str, path: str) -> AuthorizationAttributes:
    return AuthorizationAttributes(JANE, verb, False, path=path)


def rule(verbs: str, group: str, resources: str, names: str = "") -> PolicyRule:
    """A resource rule from space-separated verbs, resources and names (one API group)."""
    return PolicyRule(tuple(verbs.split()), (group,), tuple(resources.split()), tuple(names.split()))


def urls(verbs: str, paths: str) -> PolicyRule:
    return PolicyRule(tuple(verbs.split()), non_resource_urls=tuple(paths.split()))


PODS_READ = rule("get list watch", "", "pods")
CLUSTER_INFO = rule("get list watch create", "", "configmaps", "cluster-info")
SCALE = rule("update", "apps", "*/scale")
TOKEN = rule("create", "", "serviceaccounts/token", "ci")

RESOURCE_CASES = [
    ("exact verb, group and resource", PODS_READ, ask("list", "pods"), True),
    ("another verb", PODS_READ, ask("delete", "pods", "p"), False),
    ("another group", PODS_READ, ask("list", "pods", group="apps"), False),
    ("a subresource is not the resource", PODS_READ, ask("get", "pods/log", "p"), False),
    ("star verb", rule("*", "", "pods"), ask("deletecollection", "pods"), True),
    ("star group", rule("get", "*", "deployments"), ask("get", "deployments", "d", "apps"), True),
    ("star resource covers subresources", rule("get", "", "*"), ask("get", "pods/log", "p"), True),
    ("named subresource", rule("get", "", "pods/log"), ask("get", "pods/log", "p"), True),
    ("named subresource is not the parent", rule("get", "", "pods/log"), ask("get", "pods", "p"), False),
    ("star slash subresource", SCALE, ask("update", "deployments/scale", "d", "apps"), True),
    ("star slash needs that subresource", SCALE, ask("update", "deployments/status", "d", "apps"), False),
    ("star slash is no resource", SCALE, ask("update", "deployments", "d", "apps"), False),
    ("parent slash star is no wildcard", rule("get", "", "pods/*"), ask("get", "pods/log", "p"), False),
    ("resourceNames allow the named object", CLUSTER_INFO, ask("get", "configmaps", "cluster-info"), True),
    ("resourceNames refuse other objects", CLUSTER_INFO, ask("get", "configmaps", "other"), False),
    ("resourceNames never allow a list", CLUSTER_INFO, ask("list", "configmaps"), False),
    ("resourceNames never allow a watch", CLUSTER_INFO, ask("watch", "configmaps"), False),
    ("resourceNames never allow an unnamed create", CLUSTER_INFO, ask("create", "configmaps"), False),
    (
        "resourceNames allow a named subresource create",
        TOKEN,
        ask("create", "serviceaccounts/token", "ci"),
        True,
    ),
    ("a resource rule never allows a path", PODS_READ, path_request("get", "/api"), False),
]


@pytest.mark.parametrize(
    ("case", "policy", "attributes", "expected"), RESOURCE_CASES, ids=[c[0] for c in RESOURCE_CASES]
)
def test_resource_rules_match_as_kube_matches_them(
    case: str, policy: PolicyRule, attributes: AuthorizationAttributes, expected: bool
) -> None:
    """Each row: a rule, a resource request, and whether kube's RBAC allows it."""
    assert allows(policy, attributes) is expected


URL_CASES = [
    ("exact path", "/healthz", "get", "/healthz", True),
    ("exact path is not a prefix", "/healthz", "get", "/healthz/ping", False),
    ("star suffix matches below", "/apis/*", "get", "/apis/apps/v1", True),
    ("star suffix needs its prefix", "/apis/*", "get", "/apis", False),
    ("bare star matches everything", "*", "get", "/metrics", True),
    ("prefix star without slash", "/health*", "get", "/healthz/etcd", True),
    ("verb must match", "/healthz", "post", "/healthz", False),
]


@pytest.mark.parametrize(
    ("case", "paths", "verb", "path", "expected"), URL_CASES, ids=[c[0] for c in URL_CASES]
)
def test_non_resource_urls_match_exactly_or_by_star_suffix(
    case: str, paths: str, verb: str, path: str, expected: bool
) -> None:
    """Each row: a non-resource rule, a path request, and whether it is allowed."""
    assert allows(urls("get", paths), path_request(verb, path)) is expected


def test_a_non_resource_rule_never_allows_a_resource_request() -> None:
    """A rule of URLs grants paths only, even with a star."""
    assert not allows(urls("*", "*"), ask("get", "pods", "p"))


def test_rules_from_json_reads_null_and_ignores_junk() -> None:
    """An aggregated role's `rules: null` is no rules; non-string entries are skipped."""
    assert rules_from_json(None) == ()
    assert rules_from_json([{"verbs": ["get", 3], "apiGroups": [""], "resources": ["pods"]}, "x"]) == (
        PolicyRule(("get",), ("",), ("pods",)),
    )


def test_breakdown_gives_one_atom_per_group_resource_verb_and_name() -> None:
    """2 resources, 2 verbs and 2 names make 8 atoms; URLs combine with verbs only."""
    assert len(breakdown(rule("get update", "", "pods secrets", "a b"))) == 8
    assert breakdown(urls("get post", "/x")) == [urls("get", "/x"), urls("post", "/x")]


GET, LIST = rule("get", "", "pods"), rule("list", "", "pods")

COVER_CASES = [
    ("same rule", [PODS_READ], PODS_READ, True),
    ("fewer verbs", [PODS_READ], rule("get", "", "pods"), True),
    ("more verbs", [PODS_READ], rule("get delete", "", "pods"), False),
    ("two held rules lack a third verb", [GET, LIST], PODS_READ, False),
    ("two held rules cover their union", [GET, LIST], rule("get list", "", "pods"), True),
    ("named within unnamed", [PODS_READ], rule("get", "", "pods", "p"), True),
    ("unnamed within named", [rule("get", "", "pods", "p")], rule("get", "", "pods"), False),
    ("under star slash", [rule("get", "apps", "*/scale")], rule("get", "apps", "deployments/scale"), True),
    ("a star verb needs a star verb", [PODS_READ], rule("*", "", "pods"), False),
    ("url under a star url", [urls("get", "/apis/*")], urls("get", "/apis/apps"), True),
    ("url not under the held one", [urls("get", "/healthz")], urls("get", "/metrics"), False),
    ("cluster-admin covers everything", list(FULL_AUTHORITY), rule("*", "*", "*"), True),
]  # fmt: skip


@pytest.mark.parametrize(("case", "held", "wanted", "expected"), COVER_CASES, ids=[c[0] for c in COVER_CASES])
def test_held_rules_cover_wanted_rules_as_kube_decides(
    case: str, held: list[PolicyRule], wanted: PolicyRule, expected: bool
) -> None:
    """Each row: what a user holds, what they want to grant, and whether nothing escalates."""
    assert (not uncovered(held, [wanted])) is expected


def test_missing_atoms_are_compacted_by_resource_and_printed_as_kube_prints_them() -> None:
    """Verbs of the same group/resource merge; the compact string is Go's %q of each list."""
    missing = uncovered([], [rule("get delete", "apps", "deployments")])
    assert [r.compact_string() for r in compact(missing)] == [
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "delete"]}'
    ]
    assert rule("get", "", "configmaps", "cluster-info").compact_string() == (
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["cluster-info"], Verbs:["get"]}'
    )
    assert urls("get", "/x").compact_string() == '{NonResourceURLs:["/x"], Verbs:["get"]}'


def test_to_json_leaves_empty_lists_out() -> None:
    """The JSON form omits what a rule does not set, as the API shows rules."""
    assert PODS_READ.to_json() == {
        "verbs": ["get", "list", "watch"],
        "apiGroups": [""],
        "resources": ["pods"],
    }
    assert urls("get", "/x").to_json() == {"verbs": ["get"], "nonResourceURLs": ["/x"]}
