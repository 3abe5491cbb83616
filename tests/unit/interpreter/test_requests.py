"""Effective pod requests: kube's init container and sidecar rules, quantities written as kube writes them."""

from __future__ import annotations

import pytest

from flotilla.interpreter.kinds import InterpreterError
from flotilla.interpreter.requests import counted_units, pod_requests, resource_list
from tests.unit.interpreter.samples import web_deployment


@pytest.mark.parametrize(
    ("name", "text", "units"),
    [
        ("cpu", "500m", 500),
        ("cpu", "2", 2000),
        ("cpu", "0.0001", 1),
        ("memory", "1Gi", 2**30),
        ("memory", "1.5", 2),
        ("pods", "1e3", 1000),
        ("nvidia.com/gpu", 3, 3),
    ],
)
def test_counted_units_are_millicores_for_cpu_and_whole_units_otherwise(
    name: str, text: object, units: int
) -> None:
    """Karmada counts CPU in millicores and everything else in whole units, both rounded up."""
    assert counted_units(name, text) == units


@pytest.mark.parametrize("text", ["", "1.2.3", "12Q", "abc", None, True])
def test_counted_units_refuse_what_is_not_a_quantity(text: object) -> None:
    """Malformed quantities are an interpreter error, not a crash."""
    with pytest.raises(InterpreterError):
        counted_units("cpu", text)


@pytest.mark.parametrize(
    ("amounts", "written"),
    [
        ({"cpu": 1500}, {"cpu": "1500m"}),
        ({"cpu": 2000}, {"cpu": "2"}),
        ({"pods": 1000}, {"pods": "1k"}),
        ({"memory": 2**27}, {"memory": "128Mi"}),
        ({"memory": 3 * 2**30}, {"memory": "3Gi"}),
        ({"ephemeral-storage": 100_000_000}, {"ephemeral-storage": "100000000"}),
        ({"memory": 512}, {"memory": "512"}),
    ],
)
def test_resource_list_writes_quantities_as_kube_writes_them(
    amounts: dict[str, int], written: dict[str, str]
) -> None:
    """CPU as millicores in decimal notation, byte counts in binary notation when 1024 divides them."""
    assert resource_list(amounts) == written


def test_requests_of_a_pod_add_containers_and_sidecars_and_take_the_larger_init_phase() -> None:
    """App containers and the sidecar add up; the migrate init container alone needs more CPU than that."""
    spec = web_deployment()["spec"]["template"]["spec"]
    requests = pod_requests(spec)
    # Init phase: migrate (2000m) runs before the sidecar starts; app phase: 500 + 250 + 100 = 850m.
    assert requests["cpu"] == 2000
    # App phase: 512Mi + 128Mi + the sidecar's 64Mi (from its limit) beats migrate's 256Mi.
    assert requests["memory"] == (512 + 128 + 64) * 2**20
    assert requests["ephemeral-storage"] == 2 * 2**30
    assert requests["nvidia.com/gpu"] == 1


def test_an_init_container_after_a_sidecar_runs_beside_it() -> None:
    """An ordinary init container started after a sidecar needs its own request plus the sidecar's."""
    spec = {
        "initContainers": [
            {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "300m"}}},
            {"name": "setup", "resources": {"requests": {"cpu": "1"}}},
        ],
        "containers": [{"name": "app", "resources": {"requests": {"cpu": "200m"}}}],
    }
    assert pod_requests(spec) == {"cpu": 1300}


def test_overhead_comes_on_top_and_unknown_resource_names_are_ignored() -> None:
    """The runtime class overhead is added; names that are neither native nor scalar do not count."""
    spec = {
        "overhead": {"cpu": "10m", "memory": "16Mi"},
        "containers": [{"name": "app", "resources": {"requests": {"cpu": "90m", "widgets": "3"}}}],
    }
    assert pod_requests(spec) == {"cpu": 100, "memory": 16 * 2**20}


def test_resource_list_writes_cpu_in_millicores_and_memory_in_binary_units() -> None:
    """The requirements on the binding read as a kube resource list."""
    assert resource_list({"cpu": 850, "memory": 704 * 2**20, "pods": 1, "hugepages-2Mi": 2**21}) == {
        "cpu": "850m",
        "hugepages-2Mi": "2Mi",
        "memory": "704Mi",
        "pods": "1",
    }


def test_resource_list_of_nothing_is_none() -> None:
    """A template without requests has no resource request at all."""
    assert resource_list({}) is None
    assert resource_list({"cpu": 0}) is None
