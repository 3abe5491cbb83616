"""The simulated usage arithmetic: a load divided among ready pods, nodes adding up their pods."""

from __future__ import annotations

from fractions import Fraction

from flotilla.sim.metrics.loads import Load
from flotilla.sim.metrics.usage import (
    NODE_BASE,
    POD_BASE,
    PodFacts,
    Usage,
    node_usages,
    pod_usages,
    split_among_containers,
)

WEB = ("Deployment", "shop", "web")
GIB = Fraction(2**30)


def pod(name: str, *, node: str = "n1", ready: bool = True, load: Load | None = None) -> PodFacts:
    return PodFacts("shop", name, node, ready, WEB if load is not None else None, load)


def test_a_load_is_divided_evenly_among_the_ready_pods() -> None:
    load = Load(cpu=Fraction(2), memory=GIB)
    usages = pod_usages([pod(f"web-{i}", load=load) for i in range(4)])
    assert set(usages.values()) == {Usage(Fraction(1, 2), GIB / 4)}


def test_unready_pods_use_the_base_and_do_not_share_the_load() -> None:
    load = Load(cpu=Fraction(3))
    usages = pod_usages([pod("a", load=load), pod("b", load=load), pod("c", load=load, ready=False)])
    assert usages[("shop", "a")].cpu == usages[("shop", "b")].cpu == Fraction(3, 2)
    assert usages[("shop", "c")] == POD_BASE


def test_a_dimension_the_load_leaves_unset_reads_the_base() -> None:
    usages = pod_usages([pod("a", load=Load(cpu=Fraction(1)))])
    assert usages[("shop", "a")] == Usage(Fraction(1), POD_BASE.memory)


def test_pods_without_a_load_use_the_base() -> None:
    assert pod_usages([pod("lonely")]) == {("shop", "lonely"): POD_BASE}


def test_loads_of_different_workloads_are_divided_separately() -> None:
    other = PodFacts("shop", "db-0", "n1", True, ("StatefulSet", "shop", "db"), Load(cpu=Fraction(1)))
    usages = pod_usages(
        [pod("web-0", load=Load(cpu=Fraction(4))), pod("web-1", load=Load(cpu=Fraction(4))), other]
    )
    assert usages[("shop", "web-0")].cpu == 2
    assert usages[("shop", "db-0")].cpu == 1


def test_a_node_uses_its_base_plus_its_pods() -> None:
    pods = [pod("a", node="n1", load=Load(cpu=Fraction(2))), pod("b", node="n2", load=Load(cpu=Fraction(2)))]
    pods.append(pod("c", node="n1"))
    totals = node_usages(["n1", "n2", "n3"], pods, pod_usages(pods))
    assert totals["n1"].cpu == NODE_BASE.cpu + 1 + POD_BASE.cpu
    assert totals["n2"].cpu == NODE_BASE.cpu + 1
    assert totals["n3"] == NODE_BASE


def test_a_split_over_containers_adds_up_to_the_whole() -> None:
    parts = split_among_containers(Fraction(1, 3), 2, 10**9)
    assert parts == [166666667, 166666667]
    assert sum(split_among_containers(Fraction(10), 3, 1)) == 10
    assert split_among_containers(Fraction(10), 3, 1) == [4, 3, 3]
