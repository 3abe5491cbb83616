"""Objects every cluster has from its first start: the default namespaces."""

from __future__ import annotations

from flotilla.api.builtin import DEFAULT_NAMESPACES
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.writes.pipeline import create_object, system_options

SYSTEM_MANAGER = "flotilla-apiserver"


async def ensure_default_namespaces(ctx: APIContext) -> None:
    served = ctx.registry.by_kind(GroupVersionKind("", "v1", "Namespace"))
    assert served is not None
    for name in DEFAULT_NAMESPACES:
        if ctx.store.get(served, "", name) is not None:
            continue
        obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        try:
            await create_object(ctx, served, obj, system_options(SYSTEM_MANAGER))
        except errors.AlreadyExists:
            continue
