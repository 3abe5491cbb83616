"""An update that loses a race to another writer: computed again on the fresh object, and 409 only when
the resourceVersion it carries — a PUT's, or one a patch set — is no longer the stored one."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.writes.normalize import FieldValidation
from flotilla.apiserver.writes.patching import pinned_resource_version
from flotilla.apiserver.writes.pipeline import WriteOptions, update_flow
from flotilla.storage.memory import MemoryBackend

CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")
INFO = RequestInfo("", "v1", "default", "configmaps", "c", "", "patch")


@pytest.fixture
async def api() -> AsyncIterator[EmbeddedAPI]:
    api = EmbeddedAPI(MemoryBackend())
    await api.start()
    try:
        await api.client("test").create(
            CONFIG_MAP,
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}},
        )
        yield api
    finally:
        await api.stop()


def config_maps(api: EmbeddedAPI) -> ServedResource:
    served = api.registry.by_kind(CONFIG_MAP)
    assert served is not None
    return served


def racing(
    api: EmbeddedAPI, change: Callable[[dict[str, Any], CachedObject], None]
) -> tuple[Callable[[CachedObject], Awaitable[dict[str, Any]]], list[str]]:
    """A computation that, the first time only, lets another writer change the object before it
    returns; `change` makes the wanted object from a copy of the one it was given."""
    seen: list[str] = []

    async def compute(current: CachedObject) -> dict[str, Any]:
        seen.append(str(current.revision))
        if len(seen) == 1:
            await api.client("rival").patch(CONFIG_MAP, "c", {"data": {"rival": "1"}}, namespace="default")
        wanted = current.copy()
        change(wanted, current)
        return wanted

    return compute, seen


async def write(
    api: EmbeddedAPI, compute: Callable[[CachedObject], Awaitable[dict[str, Any]]]
) -> CachedObject:
    pinned = [""]

    async def pinning(current: CachedObject) -> dict[str, Any]:
        wanted = await compute(current)
        pinned[0] = pinned_resource_version(wanted)
        return wanted

    options = WriteOptions(False, FieldValidation.IGNORE, "test")
    return await update_flow(
        api.context, config_maps(api), INFO, options, pinning, pinned_revision=lambda _: pinned[0]
    )


async def test_a_write_carrying_the_current_resource_version_is_computed_again_after_losing_a_race(
    api: EmbeddedAPI,
) -> None:
    """A patch that left resourceVersion alone carries the fresh one on the second try and is stored."""

    def add_mine(wanted: dict[str, Any], _: CachedObject) -> None:
        wanted.setdefault("data", {})["mine"] = "1"

    compute, seen = racing(api, add_mine)

    stored = await write(api, compute)

    assert len(seen) == 2 and seen[0] != seen[1]
    assert stored.obj["data"] == {"rival": "1", "mine": "1"}


async def test_a_write_pinned_to_the_revision_it_first_read_is_409_after_losing_a_race(
    api: EmbeddedAPI,
) -> None:
    """A resourceVersion set by the client (a PUT's, a patch's replace) no longer matches: Conflict."""
    first: list[str] = []

    def pin_first(wanted: dict[str, Any], current: CachedObject) -> None:
        first.append(str(current.revision))
        wanted["metadata"]["resourceVersion"] = first[0]
        wanted.setdefault("data", {})["mine"] = "1"

    compute, _ = racing(api, pin_first)

    with pytest.raises(errors.Conflict) as refused:
        await write(api, compute)

    assert "the object has been modified; please apply your changes to the latest version" in (
        refused.value.message
    )
