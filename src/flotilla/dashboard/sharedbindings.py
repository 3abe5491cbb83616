"""One copy of every ResourceBinding for the whole dashboard, read with its own credentials.

Listing 10,000 ResourceBindings costs the hub about a second, so a cache per session made every
new session's first overview wait that long. This cache is filled once when the dashboard starts,
with the dashboard's own kubeconfig credentials, and kept current by a watch (resumed from the
last revision; a 410 or an ERROR event lists again). It holds the compact form the pages read
(`workloads.compact_binding`), a small fraction of the objects.

It only lists and watches. It does not decide who sees it: `access.py` asks the hub, as the
user, whether that user may list ResourceBindings cluster-wide, and only then is a session
served from here (`api.py`). When the dashboard's own credentials may not list bindings, the
cache reports itself unavailable and every session reads as the user, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import structlog

from flotilla.api.karmada import constants
from flotilla.client import APIStatusError, Client, ClientError, ClusterConfig, Gone
from flotilla.client.errors import ContinueExpired
from flotilla.dashboard import workloads

log = structlog.get_logger("flotilla.dashboard.sharedbindings")

PAGE_SIZE = 2000
WATCH_SECONDS = 240
RETRY_SECONDS = 2.0
REFUSED_RETRY_SECONDS = 30.0
"""How often to try again when the dashboard's own credentials are refused the list."""


def _key_of(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


class SharedBindings:
    """Every ResourceBinding in compact form, list-then-watch, from `start()` until `stop()`."""

    def __init__(self, config: ClusterConfig) -> None:
        self._config = config
        """The dashboard's kubeconfig, credentials included: used to list and watch, nothing else."""
        self._client: Client | None = None
        self._items: dict[str, dict[str, Any]] = {}
        self._revision = ""
        self._settled = asyncio.Event()
        """Set once the first list answered, either way (filled, or refused)."""
        self._available = False
        self._task: asyncio.Task[None] | None = None
        self._listeners: set[Callable[[], None]] = set()

    @property
    def available(self) -> bool:
        """The copy is filled and kept current (the dashboard's credentials may list and watch)."""
        return self._available

    async def ready(self, timeout: float) -> bool:
        """Wait (at most `timeout`) for the first list; whether the copy can serve sessions."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), timeout)
        return self._available

    def items(self, namespace: str = "") -> list[dict[str, Any]]:
        """The bindings (of `namespace`, or all), in the hub's order; shared objects, not to be changed."""
        if not namespace:
            return list(self._items.values())
        prefix = f"{namespace}/"
        return [item for key, item in self._items.items() if key.startswith(prefix)]

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` after each change is applied (a live stream's "workloads changed"; it
        re-reads through `access.py`); returns the function that stops it."""
        self._listeners.add(listener)
        return lambda: self._listeners.discard(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def start(self) -> None:
        """Begin listing and watching (inside the running event loop, where a client must be made)."""
        self._client = Client(self._config, timeout=60.0, user_agent="flotilla-dashboard-cache")
        self._task = asyncio.create_task(self._run(self._client), name="dashboard-shared-bindings")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def _run(self, client: Client) -> None:
        while True:
            try:
                if not self._revision:
                    await self._list(client)
                await self._watch(client)
            except (Gone, ContinueExpired):
                self._revision = ""
            except APIStatusError as error:
                if error.code in (401, 403):
                    log.warning("dashboard_shared_cache_refused", kind="ResourceBinding", code=error.code)
                    self._available = False
                    self._revision = ""
                    self._settled.set()
                    await asyncio.sleep(REFUSED_RETRY_SECONDS)
                else:
                    await asyncio.sleep(RETRY_SECONDS)
            except ClientError as error:
                log.info("dashboard_shared_cache_unavailable", error=str(error))
                await asyncio.sleep(RETRY_SECONDS)

    async def _list(self, client: Client) -> None:
        fresh: dict[str, dict[str, Any]] = {}
        revision = ""
        async for page, page_revision in client.list_pages(constants.RESOURCE_BINDING, limit=PAGE_SIZE):
            for item in page:
                fresh[_key_of(item)] = workloads.compact_binding(item)
            revision = page_revision
        self._items = fresh
        self._revision = revision
        self._available = True
        self._settled.set()
        self._changed()
        log.info("dashboard_shared_cache_listed", kind="ResourceBinding", count=len(fresh))

    async def _watch(self, client: Client) -> None:
        async for event in client.watch(
            constants.RESOURCE_BINDING, resource_version=self._revision, timeout_seconds=WATCH_SECONDS
        ):
            if event.type == "ERROR":
                # The history is gone (410) or the watch failed: list again.
                self._revision = ""
                return
            revision = (event.object.get("metadata") or {}).get("resourceVersion")
            if revision:
                self._revision = str(revision)
            if event.type == "BOOKMARK":
                continue
            key = _key_of(event.object)
            if event.type == "DELETED":
                self._items.pop(key, None)
            else:
                self._items[key] = workloads.compact_binding(event.object)
            self._changed()
