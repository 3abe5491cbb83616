"""Which versions of a CRD are served and how its objects are converted, by conversion strategy."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.conversion.converters import Conversion, NopConverter
from flotilla.apiserver.registry.conversion.plans import plan_versions, storage_version, stored_versions
from flotilla.apiserver.registry.karmada.bindingconversion import BindingConverter


def crd(
    *versions: tuple[str, bool, bool],
    conversion: dict[str, Any] | None = None,
    stored: list[str] | None = None,
    name: str = "gizmos.example.com",
) -> dict[str, Any]:
    """A CRD of `versions` given as (name, served, storage)."""
    spec: dict[str, Any] = {
        "group": name.split(".", 1)[1],
        "versions": [{"name": v, "served": served, "storage": storage} for v, served, storage in versions],
    }
    if conversion is not None:
        spec["conversion"] = conversion
    return {"metadata": {"name": name}, "spec": spec, "status": {"storedVersions": stored or []}}


WEBHOOK = {"strategy": "Webhook", "webhook": {"clientConfig": {"url": "https://hook.example.com/convert"}}}


def test_one_version_needs_no_conversion() -> None:
    """A CRD of one version, stored only there, serves it and converts nothing."""
    plan = plan_versions(crd(("v1", True, True), stored=["v1"]))
    assert (plan.served, plan.conversion, plan.unsupported) == (("v1",), None, "")


def test_strategy_none_serves_every_served_version_with_the_nop_converter() -> None:
    """Two served versions, strategy None (kube's default): both served, apiVersion rewritten."""
    plan = plan_versions(crd(("v1", True, True), ("v2", True, False), ("v0", False, False)))
    assert plan.served == ("v1", "v2")
    assert plan.conversion == Conversion("example.com/v1", NopConverter())
    assert plan.unsupported == ""


def test_objects_stored_at_a_version_no_longer_listed_are_still_converted() -> None:
    """One version left, but storedVersions still names another: conversion stays on."""
    plan = plan_versions(crd(("v2", True, True), stored=["v1", "v2"]))
    assert plan.served == ("v2",) and plan.conversion == Conversion("example.com/v2", NopConverter())


def test_webhook_conversion_serves_only_the_storage_version_and_says_why() -> None:
    """This server calls no conversion webhook: the storage version alone is served, and the plan says so."""
    plan = plan_versions(crd(("v1", True, True), ("v2", True, False), conversion=WEBHOOK))
    assert plan.served == ("v1",) and plan.conversion is None
    assert plan.unsupported == (
        "this API server does not call conversion webhooks; only the storage version v1 is served; not v2; "
        "objects stored at another version are served as stored, without conversion"
    )


def test_webhook_conversion_of_one_version_is_no_problem() -> None:
    """A Webhook CRD of a single version needs no webhook, and no condition."""
    plan = plan_versions(crd(("v1", True, True), conversion=WEBHOOK, stored=["v1"]))
    assert (plan.served, plan.unsupported) == (("v1",), "")


def test_the_karmada_bindings_use_the_built_in_converter_whatever_the_strategy() -> None:
    """resourcebindings.work.karmada.io: both versions served, converted as Karmada's webhook does."""
    for conversion in (None, WEBHOOK):
        plan = plan_versions(
            crd(
                ("v1alpha1", True, False),
                ("v1alpha2", True, True),
                conversion=conversion,
                name="resourcebindings.work.karmada.io",
            )
        )
        assert plan.served == ("v1alpha1", "v1alpha2")
        assert plan.conversion == Conversion("work.karmada.io/v1alpha2", BindingConverter())


def test_storage_and_stored_versions_are_read_from_spec_and_status() -> None:
    """The storage version is the one marked so; storedVersions as the status lists them."""
    definition = crd(("v1", True, False), ("v2", True, True), stored=["v1", "v2"])
    assert storage_version(definition) == "v2"
    assert stored_versions(definition) == ["v1", "v2"]
    assert storage_version({"spec": {}}) == "" and stored_versions({}) == []
