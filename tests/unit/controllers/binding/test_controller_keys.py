"""The binding controller's keys and finalizer patches."""

from __future__ import annotations

from flotilla.controllers.binding.controller import binding_key_of_template, finalizer_patch, template_gvk


def test_templates_map_to_the_binding_the_detector_names() -> None:
    """Namespaced templates have ResourceBindings, cluster-scoped ones ClusterResourceBindings."""
    assert binding_key_of_template("Deployment", "nginx", "default") == (
        "ResourceBinding",
        "default",
        "nginx-deployment",
    )
    assert binding_key_of_template("ClusterRole", "admin", "") == (
        "ClusterResourceBinding",
        "",
        "admin-clusterrole",
    )


def test_template_kinds_parse_core_and_grouped_api_versions() -> None:
    """`v1` is the core group, `apps/v1` the apps group."""
    assert template_gvk("v1", "ConfigMap").group == ""
    assert (template_gvk("apps/v1", "Deployment").group, template_gvk("apps/v1", "Deployment").version) == (
        "apps",
        "v1",
    )


def test_adding_a_finalizer_keeps_the_others_and_is_not_pinned() -> None:
    """Adding appends to the list; a live binding needs no resourceVersion precondition."""
    binding = {"metadata": {"resourceVersion": "5", "finalizers": ["other"]}}
    assert finalizer_patch(binding, "karmada.io/binding-controller", present=True) == {
        "metadata": {"finalizers": ["other", "karmada.io/binding-controller"]}
    }


def test_removing_a_finalizer_is_pinned_to_the_resource_version() -> None:
    """Removal keeps other finalizers and fails on a concurrent change instead of dropping one."""
    binding = {
        "metadata": {
            "resourceVersion": "5",
            "finalizers": ["karmada.io/binding-controller", "foregroundDeletion"],
        }
    }
    assert finalizer_patch(binding, "karmada.io/binding-controller", present=False) == {
        "metadata": {"resourceVersion": "5", "finalizers": ["foregroundDeletion"]}
    }


def test_nothing_to_do_gives_no_patch() -> None:
    """A finalizer already present (or already gone) needs no request."""
    binding = {"metadata": {"finalizers": ["karmada.io/binding-controller"]}}
    assert finalizer_patch(binding, "karmada.io/binding-controller", present=True) is None
    assert finalizer_patch({"metadata": {}}, "karmada.io/binding-controller", present=False) is None
