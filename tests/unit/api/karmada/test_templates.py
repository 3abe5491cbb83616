"""Which kinds and objects are resource templates: the detector's rule, shared with describe and plan."""

from __future__ import annotations

import pytest

from flotilla.api.karmada.templates import is_karmada_group, is_template, is_template_kind


@pytest.mark.parametrize(
    ("group", "kind", "expected"),
    [
        ("apps", "Deployment", True),
        ("", "ConfigMap", True),
        ("", "Namespace", True),
        ("example.com", "Widget", True),
        ("policy.karmada.io", "PropagationPolicy", False),
        ("cluster.karmada.io", "Cluster", False),
        ("karmada.io", "Anything", False),
        ("", "Event", False),
        ("events.k8s.io", "Event", False),
        ("coordination.k8s.io", "Lease", False),
    ],
)
def test_karmada_kinds_events_and_leases_are_not_templates(group: str, kind: str, expected: bool) -> None:
    """Karmada's groups, core and events.k8s.io Events and Leases are never templates."""
    assert is_template_kind(group, kind) is expected


def test_only_karmada_io_and_its_subgroups_are_karmada_groups() -> None:
    """A group merely ending in the same letters is someone else's."""
    assert is_karmada_group("karmada.io") and is_karmada_group("work.karmada.io")
    assert not is_karmada_group("notkarmada.io")


@pytest.mark.parametrize("namespace", ["karmada-system", "karmada-cluster", "karmada-es-m1", "kube-system"])
def test_objects_of_skipped_namespaces_and_those_namespaces_are_not_templates(namespace: str) -> None:
    """Reserved and kube-* namespaces: neither their objects nor the Namespace objects propagate."""
    assert not is_template({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": namespace}})
    assert not is_template({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})


def test_other_objects_and_namespaces_are_templates() -> None:
    """An ordinary object, a Namespace of another name, and an object without metadata may propagate."""
    assert is_template({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"namespace": "shop"}})
    assert is_template({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
    assert is_template({"apiVersion": "v1", "kind": "ConfigMap"})
