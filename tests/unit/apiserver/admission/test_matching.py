"""Rules, scopes and selectors decide which webhooks see a request, as in kube-apiserver."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from flotilla.api.selectors import label_selector_from_object
from flotilla.apiserver import errors
from flotilla.apiserver.admission.matching import (
    MatchRequest,
    object_selector_matches,
    rule_matches,
    should_call,
)
from flotilla.apiserver.admission.registrations import Rule, compile_webhook

CREATE_CONFIG_MAP = MatchRequest("CREATE", "", "v1", "configmaps", "", "default")
UPDATE_POD_STATUS = MatchRequest("UPDATE", "", "v1", "pods", "status", "default")
UPDATE_NODE = MatchRequest("UPDATE", "", "v1", "nodes", "", "")
UPDATE_NAMESPACE = MatchRequest("UPDATE", "", "v1", "namespaces", "", "team-a")


def rule(
    resources: tuple[str, ...], *, operations: tuple[str, ...] = ("*",), scope: str = "*", **extra: Any
) -> Rule:
    return Rule(
        operations=frozenset(operations),
        api_groups=frozenset(extra.get("groups", ("*",))),
        api_versions=frozenset(extra.get("versions", ("*",))),
        resources=tuple(tuple(entry.partition("/")[::2]) for entry in resources),  # type: ignore[misc]
        scope=scope,
    )


@pytest.mark.parametrize(
    ("resources", "request_", "expected"),
    [
        (("configmaps",), CREATE_CONFIG_MAP, True),
        (("secrets",), CREATE_CONFIG_MAP, False),
        (("*",), CREATE_CONFIG_MAP, True),
        (("*",), UPDATE_POD_STATUS, False),
        (("*/*",), UPDATE_POD_STATUS, True),
        (("pods",), UPDATE_POD_STATUS, False),
        (("pods/status",), UPDATE_POD_STATUS, True),
        (("pods/*",), UPDATE_POD_STATUS, True),
        (("*/status",), UPDATE_POD_STATUS, True),
        (("*/scale",), UPDATE_POD_STATUS, False),
    ],
)
def test_resources_match_with_kubes_wildcard_forms(
    resources: tuple[str, ...], request_: MatchRequest, expected: bool
) -> None:
    """`*` is every resource without subresource, `*/*` everything, `x/*` and `*/y` one side wild."""
    assert rule_matches(rule(resources), request_) is expected


def test_operations_groups_and_versions_must_all_match() -> None:
    """A rule for DELETE, another group or another version does not match a v1 ConfigMap create."""
    assert rule_matches(rule(("configmaps",), operations=("CREATE",)), CREATE_CONFIG_MAP)
    assert not rule_matches(rule(("configmaps",), operations=("DELETE",)), CREATE_CONFIG_MAP)
    assert not rule_matches(rule(("configmaps",), groups=("apps",)), CREATE_CONFIG_MAP)
    assert not rule_matches(rule(("configmaps",), versions=("v2",)), CREATE_CONFIG_MAP)
    assert rule_matches(rule(("configmaps",), groups=("",), versions=("v1",)), CREATE_CONFIG_MAP)


@pytest.mark.parametrize(
    ("scope", "request_", "expected"),
    [
        ("Namespaced", CREATE_CONFIG_MAP, True),
        ("Namespaced", UPDATE_NODE, False),
        ("Namespaced", UPDATE_NAMESPACE, False),
        ("Cluster", CREATE_CONFIG_MAP, False),
        ("Cluster", UPDATE_NODE, True),
        ("Cluster", UPDATE_NAMESPACE, True),
        ("*", UPDATE_NODE, True),
    ],
)
def test_scope_treats_namespace_objects_as_cluster_scoped(
    scope: str, request_: MatchRequest, expected: bool
) -> None:
    """A Namespace's requests carry its name as namespace, yet it only matches Cluster scope."""
    assert rule_matches(rule(("*",), scope=scope), request_) is expected


def labelled(**labels: str) -> dict[str, Any]:
    return {"metadata": {"labels": labels}}


def test_the_object_selector_matches_the_new_or_the_old_object() -> None:
    """A label on either side of an update is enough; no object at all never matches."""
    selector = label_selector_from_object({"matchLabels": {"team": "a"}})
    assert object_selector_matches(selector, labelled(team="a"), None)
    assert object_selector_matches(selector, labelled(team="b"), labelled(team="a"))
    assert not object_selector_matches(selector, labelled(team="b"), labelled())
    assert not object_selector_matches(selector, None, None)
    assert object_selector_matches(label_selector_from_object({}), None, None)


def hook(**fields: Any) -> Any:
    body = {
        "name": "check.example.com",
        "rules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}],
        **fields,
    }
    return compile_webhook("config", 0, body, mutating=False)


NAMESPACES = {"team-a": {"team": "a"}, "team-b": {"team": "b"}}


def namespace_labels(name: str) -> dict[str, str] | None:
    return NAMESPACES.get(name)


def test_the_namespace_selector_reads_the_labels_of_the_requests_namespace() -> None:
    """Objects in team-a match `team=a`; objects in team-b do not."""
    webhook = hook(namespaceSelector={"matchLabels": {"team": "a"}})
    in_a = replace(CREATE_CONFIG_MAP, namespace="team-a")
    in_b = replace(CREATE_CONFIG_MAP, namespace="team-b")
    assert should_call(webhook, in_a, labelled(), None, namespace_labels)
    assert not should_call(webhook, in_b, labelled(), None, namespace_labels)


def test_a_namespace_being_written_is_matched_on_its_new_labels() -> None:
    """Creating or relabelling a Namespace is judged by the labels it is written with, not the stored ones."""
    webhook = hook(namespaceSelector={"matchLabels": {"team": "a"}})
    create = MatchRequest("CREATE", "", "v1", "namespaces", "", "")
    assert should_call(webhook, create, labelled(team="a"), None, namespace_labels)
    assert not should_call(
        webhook, UPDATE_NAMESPACE, labelled(team="b"), labelled(team="a"), namespace_labels
    )


def test_cluster_scoped_objects_always_pass_the_namespace_selector() -> None:
    """A Node has no namespace to select on, so the selector does not exclude it."""
    webhook = hook(namespaceSelector={"matchLabels": {"team": "a"}})
    assert should_call(webhook, UPDATE_NODE, labelled(), labelled(), namespace_labels)


def test_a_missing_namespace_is_an_error_only_for_webhooks_whose_rules_match() -> None:
    """kube answers 404 for the namespace when a matching webhook needs its labels; others skip quietly."""
    selective = {"namespaceSelector": {"matchLabels": {"team": "a"}}}
    lost = replace(CREATE_CONFIG_MAP, namespace="gone")
    with pytest.raises(errors.NotFound, match='namespaces "gone" not found'):
        should_call(hook(**selective), lost, labelled(), None, namespace_labels)
    secrets_only = hook(
        rules=[{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["secrets"]}],
        **selective,
    )
    assert not should_call(secrets_only, lost, labelled(), None, namespace_labels)


def test_an_unparsable_selector_fails_matching_requests_with_a_500() -> None:
    """A stored selector that does not parse is an internal error, not a silent match."""
    broken = hook(objectSelector={"matchExpressions": [{"key": "a", "operator": "Near"}]})
    with pytest.raises(errors.InternalError, match="not a valid selector operator"):
        should_call(broken, CREATE_CONFIG_MAP, labelled(), None, namespace_labels)
