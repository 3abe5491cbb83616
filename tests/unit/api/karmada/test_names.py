"""Derived names come out exactly as Karmada computes them."""

from __future__ import annotations

import uuid

import pytest

from flotilla.api import names as syntax
from flotilla.api.karmada import names


@pytest.mark.parametrize(
    ("kind", "name", "expected"),
    [
        ("Deployment", "nginx", "nginx-deployment"),
        ("pods", "Pod", "pod-pods"),
        ("Role", "system:controller:tom", "system.controller.tom-role"),
        ("ClusterRole", "system::tom", "system..tom-clusterrole"),
    ],
)
def test_binding_name_is_name_dash_kind_lower_case(kind: str, name: str, expected: str) -> None:
    """Colons (RBAC names) become dots so the name is a valid object name."""
    assert names.binding_name(kind, name) == expected


def test_a_binding_name_that_fits_253_characters_is_karmada_s() -> None:
    """Up to the limit the name is `<name>-<kind>`, byte for byte; one character more and it is hashed."""
    longest = "a" * (253 - len("-configmap"))
    assert names.binding_name("ConfigMap", longest) == f"{longest}-configmap"
    hashed = names.binding_name("ConfigMap", longest + "b")
    assert len(hashed) <= 253 and hashed.endswith("-configmap")
    assert hashed != f"{longest}b-configmap"


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("ConfigMap", "c" * 253),
        ("Deployment", "web-" * 62 + "abcde"),
        # Separators every second or third character: wherever the cut falls, one is there or next.
        ("ConfigMap", "a-" * 126 + "a"),
        ("ConfigMap", "aa-" * 84 + "a"),
        ("Secret", "a." * 126 + "a"),
        ("Secret", "aa." * 84 + "a"),
        ("ClusterRole", "system:" + "r" * 246),
        ("MyVeryOwnCustomResourceKindWithALongName", "n" * 253),
    ],
)
def test_long_binding_names_fit_an_object_name_and_keep_the_kind(kind: str, name: str) -> None:
    """A template name near 253 characters gets a binding name that is a valid object name."""
    bound = names.binding_name(kind, name)
    assert len(bound) <= 253
    assert syntax.dns1123_subdomain_errors(bound) == []
    assert bound.endswith(f"-{kind.lower()}")
    assert bound.startswith(name.replace(":", ".").lower()[:100])
    assert bound == names.binding_name(kind, name)  # the same every time: a key, not a random name


def test_long_names_with_the_same_head_get_different_bindings() -> None:
    """The hash covers the whole name, so names differing only past the cut stay apart."""
    head = "shared-" * 35
    assert names.binding_name("ConfigMap", head + "one") != names.binding_name("ConfigMap", head + "two")
    assert names.binding_name("ConfigMap", "c" * 253) != names.binding_name("Secret", "c" * 253)


def test_work_name_matches_karmada_for_the_getting_started_deployment() -> None:
    """Karmada names the Work of Deployment default/nginx `nginx-687f7fb96f` in every cluster."""
    assert names.work_name("Deployment", "nginx", "default") == "nginx-687f7fb96f"


def test_work_name_hashes_namespace_name_and_kind() -> None:
    """Cluster-scoped templates hash without a namespace; any difference changes the hash."""
    cluster_scoped = names.work_name("ClusterRole", "system:viewer", "")
    assert cluster_scoped.startswith("system.viewer-")
    assert cluster_scoped != names.work_name("Role", "system:viewer", "")
    assert names.work_name("Deployment", "nginx", "a") != names.work_name("Deployment", "nginx", "b")
    suffix = names.work_name("Deployment", "Nginx", "default").rsplit("-", 1)[1]
    assert set(suffix) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_short_label_value_keeps_the_head_and_initials_of_the_tail() -> None:
    """Karmada's documented example of shortening a long name."""
    long_name = "lala.134-ab_abc-adfja2edklfja3rqdkfjasfa-1234567890123-a-b"
    assert names.short_label_value(long_name) == "lala-134-ab-abc-adfja2edklfja3rqdkfjasfa-12345678-ab"
    assert names.short_label_value("short-name") == "short-name"
    assert names.short_label_value("x" * 60) == "x" * 52


def test_long_work_names_fit_a_label_value() -> None:
    """The name part is shortened so that name, dash and hash stay within 63 characters."""
    work = names.work_name("Deployment", "a-very-long-deployment-name-" * 3, "default")
    assert len(work) <= 63


def test_fnv32a_and_safe_encoding_are_apimachinery_s() -> None:
    """FNV-1a test vectors, and digits mapped through the vowel-free alphabet."""
    assert names.fnv32a("") == 0x811C9DC5
    assert names.fnv32a("a") == 0xE40C292C
    assert names.safe_encode("0123456789") == "456789bcdf"


def test_execution_namespaces_map_to_clusters_and_back() -> None:
    """`karmada-es-<cluster>`; other namespaces belong to no cluster."""
    assert names.execution_namespace("sz") == "karmada-es-sz"
    assert names.cluster_of_execution_namespace("karmada-es-sz") == "sz"
    assert names.cluster_of_execution_namespace("default") is None


@pytest.mark.parametrize(
    ("namespace", "reserved"),
    [("karmada-system", True), ("karmada-cluster", True), ("karmada-es-a", True), ("default", False)],
)
def test_reserved_namespaces(namespace: str, reserved: bool) -> None:
    """Karmada's own namespaces are never propagated."""
    assert names.is_reserved_namespace(namespace) is reserved


def test_permanent_ids_are_fresh_uuids() -> None:
    """Each call gives a new random UUID."""
    first, second = names.new_permanent_id(), names.new_permanent_id()
    assert first != second
    assert uuid.UUID(first).version == 4
