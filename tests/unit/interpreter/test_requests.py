"""Effective pod requests: kube's init container and sidecar rules, quantities written as kube writes them."""

from __future__ import annotations

from fractions import Fraction

import pytest

from flotilla.interpreter.kinds import InterpreterError
from flotilla.interpreter.requests import (
    binary_quantity,
    decimal_quantity,
    parse_amount,
    pod_requests,
    resource_list,
)
from tests.unit.interpreter.samples import web_deployment


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("500m", Fraction(1, 2)),
        ("2", Fraction(2)),
        ("1Gi", Fraction(2**30)),
        ("1.5", Fraction(3, 2)),
        ("1e3", Fraction(1000)),
        ("100M", Fraction(10**8)),
        (".5", Fraction(1, 2)),
        (3, Fraction(3)),
    ],
)
def test_parse_amount_reads_kube_quantities(text: object, amount: Fraction) -> None:
    """Every quantity notation kube accepts is read as its exact amount."""
    assert parse_amount(text) == amount


@pytest.mark.parametrize("text", ["", "1.2.3", "12Q", "abc", None, True])
def test_parse_amount_refuses_what_is_not_a_quantity(text: object) -> None:
    """Malformed quantities are an interpreter error, not a crash."""
    with pytest.raises(InterpreterError):
        parse_amount(text)


@pytest.mark.parametrize(
    ("amount", "written"),
    [
        (Fraction(3, 2), "1500m"),
        (Fraction(2), "2"),
        (Fraction(1, 4), "250m"),
        (Fraction(1000), "1k"),
        (0, "0"),
    ],
)
def test_decimal_quantity_uses_the_largest_suffix_keeping_a_whole_number(
    amount: Fraction, written: str
) -> None:
    """Decimal quantities are written in kube's canonical form."""
    assert decimal_quantity(Fraction(amount)) == written


@pytest.mark.parametrize(
    ("amount", "written"), [(2**27, "128Mi"), (3 * 2**30, "3Gi"), (100_000_000, "100000000"), (512, "512")]
)
def test_binary_quantity_uses_binary_suffixes_only_for_multiples_of_1024(amount: int, written: str) -> None:
    """Byte counts keep a binary suffix when one divides them and stay plain numbers otherwise."""
    assert binary_quantity(amount) == written


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
