"""Reaching the hub as the signed-in user, never as the dashboard's own kubeconfig user.

`HubAccess` keeps only where the hub is and how to trust it (server, endpoints, CA) from the
kubeconfig the dashboard was started with; the credentials there are dropped. Each session gets a
`Client` built with its bearer token (kept per session, closed at sign-out), and the CLI code paths
that take a kubeconfig file (join, unjoin, `flotilla plan`) get a kubeconfig written for the user's
token alone (`user_kubeconfig`), so RBAC judges every call the dashboard makes on a user's behalf.
"""

from __future__ import annotations

import base64
import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from flotilla.client import Client, ClusterConfig

SELF_SUBJECT_REVIEW = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
FIELD_MANAGER = "flotilla-dashboard"


class HubAccess:
    """The hub's address and trust, and one client per signed-in session."""

    def __init__(self, config: ClusterConfig) -> None:
        self.config = replace(config, client_cert_pem=None, client_key_pem=None, token=None)
        self._clients: dict[str, Client] = {}

    def anonymous_client(self, token: str) -> Client:
        """A short-lived client with `token` (sign-in checks it before a session exists)."""
        return Client(replace(self.config, token=token), field_manager=FIELD_MANAGER, timeout=15.0)

    def client(self, session_id: str, token: str) -> Client:
        """The session's client (created on first use; must run inside the event loop)."""
        client = self._clients.get(session_id)
        if client is None:
            client = Client(
                replace(self.config, token=token),
                field_manager=FIELD_MANAGER,
                timeout=30.0,
                user_agent="flotilla-dashboard",
            )
            self._clients[session_id] = client
        return client

    async def forget(self, session_id: str) -> None:
        client = self._clients.pop(session_id, None)
        if client is not None:
            await client.close()

    async def close(self) -> None:
        for session_id in list(self._clients):
            await self.forget(session_id)

    def user_kubeconfig(self, token: str) -> str:
        """A kubeconfig for the hub with `token` as its only credential."""
        cluster: dict[str, Any] = {"server": self.config.server}
        if self.config.ca_pem:
            cluster["certificate-authority-data"] = base64.b64encode(self.config.ca_pem).decode()
        if self.config.insecure_skip_tls_verify:
            cluster["insecure-skip-tls-verify"] = True
        if self.config.tls_server_name:
            cluster["tls-server-name"] = self.config.tls_server_name
        document = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "hub", "cluster": cluster}],
            "users": [{"name": "dashboard-user", "user": {"token": token}}],
            "contexts": [{"name": "hub", "context": {"cluster": "hub", "user": "dashboard-user"}}],
            "current-context": "hub",
        }
        return yaml.safe_dump(document)


@contextlib.contextmanager
def private_file(text: str, name: str) -> Iterator[Path]:
    """`text` in a file only this user can read, removed on exit (kubeconfigs carry tokens)."""
    with tempfile.TemporaryDirectory(prefix="flotilla-dashboard-") as directory:
        path = Path(directory) / name
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(text)
        yield path


async def who_am_i(client: Client) -> tuple[str, tuple[str, ...]]:
    """The user name and groups the hub sees behind the client's token (a SelfSubjectReview)."""
    review = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    answer = await client.request("POST", SELF_SUBJECT_REVIEW, body=review)
    info = ((answer or {}).get("status") or {}).get("userInfo") or {}
    return str(info.get("username", "")), tuple(info.get("groups") or ())
