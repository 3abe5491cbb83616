"""How authenticators read the objects behind a token: a ServiceAccount, a bootstrap-token Secret, a Pod.

Authentication runs on every request, so it reads the watch cache (memory), never the store. The
authenticators take a plain `ObjectLookup` function (the server passes `APIContext.lookup`), which
keeps them testable with a dict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flotilla.api.scheme import GroupVersionKind

SERVICE_ACCOUNT = GroupVersionKind("", "v1", "ServiceAccount")
SECRET = GroupVersionKind("", "v1", "Secret")
POD = GroupVersionKind("", "v1", "Pod")
NODE = GroupVersionKind("", "v1", "Node")
CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")

ObjectLookup = Callable[[GroupVersionKind, str, str], Mapping[str, Any] | None]
"""(kind, namespace, name) → the object as cached (read-only), or None when it does not exist."""
