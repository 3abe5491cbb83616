"""Objects spelled as kubectl's name printer spells them (`deployment.apps/nginx`)."""

from __future__ import annotations

from flotilla.cli.output.names import printed_name, printed_object_name, qualified_kind


def test_qualified_kinds_are_lower_case_with_the_group_of_non_core_kinds() -> None:
    """`kind.group` for a grouped kind, the bare kind for the core group."""
    assert (qualified_kind("Deployment", "apps"), qualified_kind("Namespace", "")) == (
        "deployment.apps",
        "namespace",
    )


def test_printed_names_follow_kubectls_name_printer() -> None:
    """Lower-case kind, dotted group for non-core kinds, then the name."""
    assert printed_name("Deployment", "apps", "nginx") == "deployment.apps/nginx"
    assert printed_name("ConfigMap", "", "settings") == "configmap/settings"
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "p"},
    }
    assert printed_object_name(policy) == "propagationpolicy.policy.karmada.io/p"
