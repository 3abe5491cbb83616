"""Loads: kubectl's kind names, quantities checked, annotations read, the sim's file kept across restarts."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from flotilla.sim.metrics.loads import (
    CPU_ANNOTATION,
    MEMORY_ANNOTATION,
    Load,
    LoadBook,
    LoadError,
    annotated_load,
    workload_kind,
)


@pytest.mark.parametrize("name", ["deploy", "deployment", "Deployments", "deployments.apps"])
def test_kubectls_names_of_a_kind_are_understood(name: str) -> None:
    assert workload_kind(name).kind == "Deployment"


def test_a_kind_that_owns_no_pods_is_refused_with_the_kinds_that_do() -> None:
    with pytest.raises(LoadError, match="deployment"):
        workload_kind("configmap")


def test_a_bad_or_negative_quantity_is_refused() -> None:
    with pytest.raises(LoadError, match="not a quantity"):
        Load.from_json({"cpu": "two"})
    with pytest.raises(LoadError, match="negative"):
        Load.from_json({"memory": "-1Gi"})


def test_annotations_give_a_load_and_garbage_gives_none() -> None:
    assert annotated_load({CPU_ANNOTATION: "1500m", MEMORY_ANNOTATION: "1Gi"}) == Load(
        Fraction(3, 2), Fraction(2**30)
    )
    assert annotated_load({CPU_ANNOTATION: "lots"}) is None
    assert annotated_load({"other": "1"}) is None


def test_the_book_is_read_back_from_its_file(tmp_path: Path) -> None:
    book = LoadBook(tmp_path)
    book.write(book.set(("Deployment", "shop", "web"), Load(cpu=Fraction(2), memory=Fraction(2**29))))
    book.write(book.set(("StatefulSet", "shop", "db"), Load(cpu=Fraction(1))))
    book.write(book.set(("StatefulSet", "shop", "db"), Load()))  # cleared
    again = LoadBook(tmp_path)
    again.read()
    assert again.loads == {("Deployment", "shop", "web"): Load(Fraction(2), Fraction(2**29))}
    assert Load(Fraction(2), Fraction(2**29)).to_json() == {"cpu": "2", "memory": "512Mi"}
