"""Which evicted clusters keep their Work while an eviction task names them."""

from __future__ import annotations

from flotilla.api.karmada.work import GracefulEvictionTask, ResourceBindingSpec
from flotilla.controllers.binding.works import clusters_keeping_works


def spec(*tasks: tuple[str, str | None]) -> ResourceBindingSpec:
    return ResourceBindingSpec(
        graceful_eviction_tasks=[
            GracefulEvictionTask(from_cluster=cluster, purge_mode=mode, reason="r", producer="p")
            for cluster, mode in tasks
        ]
    )


def test_gracefully_never_and_unset_purge_modes_keep_the_work() -> None:
    kept = clusters_keeping_works(spec(("a", "Gracefully"), ("b", "Never"), ("c", None), ("d", "Graciously")))
    assert kept == {"a", "b", "c", "d"}


def test_directly_keeps_nothing() -> None:
    """Directly: the Work is an orphan, removed at once (the API server stores `Immediately` as Directly)."""
    assert clusters_keeping_works(spec(("a", "Directly"))) == frozenset()


def test_no_tasks_keep_nothing() -> None:
    assert clusters_keeping_works(ResourceBindingSpec()) == frozenset()
