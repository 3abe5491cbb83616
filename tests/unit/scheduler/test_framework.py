"""The plugin registry: in-tree order, `--plugins` flags, and filter/score roles."""

from __future__ import annotations

import pytest

from flotilla.scheduler.framework import Registry, Result
from flotilla.scheduler.plugins import in_tree_registry
from flotilla.scheduler.plugins.clusterlocality import ClusterLocality

IN_TREE = [
    "APIEnablement",
    "TaintToleration",
    "ClusterAffinity",
    "SpreadConstraint",
    "ClusterLocality",
    "ClusterEviction",
    "WorkloadAntiAffinity",
    "WorkloadAffinity",
]


def test_in_tree_registry_lists_karmadas_plugins_in_order() -> None:
    """The eight in-tree plugins, in the order Karmada's registry code adds them."""
    assert in_tree_registry().names == IN_TREE


def test_the_workload_affinity_gate_off_leaves_its_two_plugins_out() -> None:
    """`WorkloadAffinity=false`: the registry Karmada builds without the gate, the first six."""
    assert in_tree_registry(workload_affinity=False).names == IN_TREE[:6]


def test_plugins_are_sorted_into_filter_and_score_roles() -> None:
    """ClusterAffinity both filters and scores; ClusterLocality only scores."""
    registry = in_tree_registry()
    assert [plugin.name for plugin in registry.filter_plugins] == [
        "APIEnablement",
        "TaintToleration",
        "ClusterAffinity",
        "SpreadConstraint",
        "ClusterEviction",
        "WorkloadAntiAffinity",
        "WorkloadAffinity",
    ]
    assert [plugin.name for plugin in registry.score_plugins] == ["ClusterAffinity", "ClusterLocality"]


def test_star_with_minus_disables_one_plugin() -> None:
    """`--plugins=*,-ClusterLocality` keeps everything else, in order."""
    assert in_tree_registry().enabled(["*", "-ClusterLocality"]).names == [
        n for n in IN_TREE if n != "ClusterLocality"
    ]


def test_minus_before_star_also_disables() -> None:
    """The flag order does not matter: `-name,*` disables too."""
    assert "TaintToleration" not in in_tree_registry().enabled(["-TaintToleration", "*"]).names


def test_bare_names_enable_only_those() -> None:
    """Without `*`, only the listed plugins run."""
    assert in_tree_registry().enabled(["ClusterAffinity", "APIEnablement"]).names == [
        "APIEnablement",
        "ClusterAffinity",
    ]


def test_unknown_plugin_name_is_refused() -> None:
    """A typo in `--plugins` is an error rather than a silently missing filter."""
    with pytest.raises(ValueError, match="unknown scheduler plugin"):
        in_tree_registry().enabled(["*", "-TaintTolerations"])


def test_registering_a_name_twice_is_refused() -> None:
    """Names are unique, as in Karmada's registry."""
    with pytest.raises(ValueError, match="already exists"):
        Registry([("ClusterLocality", ClusterLocality), ("ClusterLocality", ClusterLocality)])


def test_register_appends_a_plugin() -> None:
    """An out-of-tree plugin runs after the in-tree ones."""
    registry = Registry([]).register("ClusterLocality", ClusterLocality)
    assert registry.names == ["ClusterLocality"] and len(registry.score_plugins) == 1


def test_unschedulable_result_needs_a_reason() -> None:
    """A rejection without a reason could not be reported, so it cannot be built."""
    with pytest.raises(ValueError, match="reason"):
        Result.unschedulable()
