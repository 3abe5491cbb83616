"""The client's roles as protocols: `Reader`, `Writer`, `StatusWriter` (controller-runtime's interfaces).

A component says which role it needs rather than asking for the whole `Client`: the agent's Lease
renewer reads and writes one Lease, the scheduler only writes results and status, an informer only
lists and watches. `Client` fills every role; a test's fake fills the one it stands in for and the
type checker proves it does (structural typing, no `cast`).

Every role has the same shape for the same thing: an object is named by its kind and name,
positionally, and its namespace is a keyword (`get(gvk, name, namespace="ns")`), so a name and a
namespace, both strings, cannot trade places unnoticed. Writes of the status subresource are their
own role (`update_status`, `patch_status`, `apply_status`), as controller-runtime's `Status()`.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Literal, Protocol, overload

from flotilla.api.scheme import GroupVersionKind
from flotilla.client.discovery import RESTMapper
from flotilla.client.watchevents import WatchEvent


class Reader(Protocol):
    """Reads objects: one by name, or a kind's list."""

    async def get(self, gvk: GroupVersionKind, name: str, *, namespace: str = "") -> dict[str, Any]:
        """The object; `NotFound` when there is none."""
        ...

    async def get_or_none(
        self, gvk: GroupVersionKind, name: str, *, namespace: str = ""
    ) -> dict[str, Any] | None:
        """The object, or None when there is none."""
        ...

    async def list(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        limit: int = 0,
    ) -> tuple[list[dict[str, Any]], str]:
        """Every matching object (in every namespace for ""), and the list's resourceVersion."""
        ...


class Writer(Protocol):
    """Creates, changes and deletes objects (their main resource: status is `StatusWriter`'s)."""

    @overload
    async def create(
        self,
        obj: dict[str, Any],
        *,
        namespace: str = "",
        field_manager: str | None = None,
        dry_run: bool = False,
        decode: Literal[True] = True,
    ) -> dict[str, Any]: ...

    @overload
    async def create(
        self,
        obj: dict[str, Any],
        *,
        namespace: str = "",
        field_manager: str | None = None,
        dry_run: bool = False,
        decode: Literal[False],
    ) -> None: ...

    async def update(self, obj: dict[str, Any], *, field_manager: str | None = None) -> dict[str, Any]:
        """Replace the object; a stale resourceVersion is a `Conflict`."""
        ...

    async def patch(
        self,
        gvk: GroupVersionKind,
        name: str,
        patch: Any,
        *,
        namespace: str = "",
        patch_type: str = ...,
        field_manager: str | None = None,
        force: bool | None = None,
    ) -> dict[str, Any]:
        """Patch the object (a JSON merge patch unless `patch_type` says otherwise)."""
        ...

    @overload
    async def apply(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        decode: Literal[True] = True,
    ) -> dict[str, Any]: ...

    @overload
    async def apply(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        decode: Literal[False],
    ) -> None: ...

    async def delete(
        self,
        gvk: GroupVersionKind,
        name: str,
        *,
        namespace: str = "",
        propagation: str | None = "Background",
        uid: str = "",
        resource_version: str = "",
        grace_period_seconds: int | None = None,
    ) -> dict[str, Any] | None:
        """Delete the object; the server's answer, None when it was already gone."""
        ...


class StatusWriter(Protocol):
    """Writes the status subresource of objects."""

    async def update_status(self, obj: dict[str, Any], *, field_manager: str | None = None) -> dict[str, Any]:
        """Replace the object's status; a stale resourceVersion is a `Conflict`."""
        ...

    async def patch_status(
        self,
        gvk: GroupVersionKind,
        name: str,
        patch: Any,
        *,
        namespace: str = "",
        patch_type: str = ...,
        field_manager: str | None = None,
    ) -> dict[str, Any]:
        """Patch the object's status (a JSON merge patch unless `patch_type` says otherwise)."""
        ...

    @overload
    async def apply_status(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        decode: Literal[True] = True,
    ) -> dict[str, Any]: ...

    @overload
    async def apply_status(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        decode: Literal[False],
    ) -> None: ...


class ReadWriter(Reader, Writer, Protocol):
    """Reads and writes objects (Go's `io.ReadWriter` naming)."""


class ObjectClient(Reader, Writer, StatusWriter, Protocol):
    """Every role on objects, and the kinds the server serves: what a controller does through the hub
    (controller-runtime's `client.Client`, which carries its RESTMapper the same way)."""

    async def discover(self, force: bool = False) -> RESTMapper:
        """The kinds the server serves (read again with `force`)."""
        ...


class ListerWatcher(Protocol):
    """Lists and watches a kind: what an informer needs (client-go's `ListerWatcher`)."""

    async def list(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        limit: int = 0,
    ) -> tuple[list[dict[str, Any]], str]:
        """Every matching object, and the list's resourceVersion to watch from."""
        ...

    def list_pages(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        limit: int = 0,
    ) -> AsyncIterator[tuple[builtins.list[dict[str, Any]], str]]:
        """The matching objects a page (`limit`) at a time, each with the list's resourceVersion."""
        ...

    def watch(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        resource_version: str = "",
        label_selector: str = "",
        field_selector: str = "",
        timeout_seconds: int = 300,
        bookmarks: bool = True,
    ) -> AsyncIterator[WatchEvent]:
        """Events after `resource_version` until the server ends the stream."""
        ...


if TYPE_CHECKING:
    from flotilla.client.client import Client

    def _client_fills_every_role(client: Client) -> tuple[ObjectClient, ListerWatcher]:
        """Never called: the type checker proves here that `Client` is each of the roles above."""
        return client, client
