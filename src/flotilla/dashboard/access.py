"""May this user see the shared copy? The hub answers, asked as the user, and the answer is kept briefly.

The shared binding cache (`sharedbindings.py`) is read with the dashboard's credentials, so RBAC
no longer judges each read of it: this module does instead, before a session is served from it.
It sends a SelfSubjectAccessReview with the session's own token (`kubectl auth can-i list
resourcebindings.work.karmada.io --all-namespaces`) and keeps the hub's answer for `TTL_SECONDS`
per session, so a revoked binding of a role takes effect within that time, as a watch already
open would let it.

A user allowed only in some namespaces is not served from the shared copy: their session reads
as the user, as before the shared copy existed, so the hub alone decides what they see. (Filtering
the shared copy by a review per namespace would cost one review per namespace holding bindings.)
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import APIStatusError, Client

SELF_SUBJECT_ACCESS_REVIEW = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
TTL_SECONDS = 30.0
MAX_ANSWERS = 10_000
Review = Callable[[Client, GroupVersionKind], Awaitable[bool]]


async def may_list_everywhere(client: Client, gvk: GroupVersionKind) -> bool:
    """Whether the client's user may list `gvk` in every namespace, as the hub's authorizer says."""
    info = await client.resource(gvk)
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": "list", "group": info.group, "resource": info.plural}},
    }
    try:
        answer = await client.request("POST", SELF_SUBJECT_ACCESS_REVIEW, body=review)
    except APIStatusError as error:
        if error.code == 403:
            return False  # not even allowed to ask: certainly not allowed to list
        raise
    return bool(((answer or {}).get("status") or {}).get("allowed"))


class ListAccess:
    """Per session and kind, the hub's last answer to "may I list it everywhere?", for a short time."""

    def __init__(
        self,
        ttl: float = TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        review: Review | None = None,
    ) -> None:
        self._ttl = ttl
        self._review = review or may_list_everywhere
        self._clock = clock
        self._answers: dict[tuple[str, GroupVersionKind], tuple[bool, float]] = {}

    async def allows(self, session_id: str, client: Client, gvk: GroupVersionKind) -> bool:
        key = (session_id, gvk)
        kept = self._answers.get(key)
        now = self._clock()
        if kept is not None and now - kept[1] < self._ttl:
            return kept[0]
        allowed = await self._review(client, gvk)
        if len(self._answers) >= MAX_ANSWERS:
            self._answers = {k: v for k, v in self._answers.items() if now - v[1] < self._ttl}
        self._answers[key] = (allowed, now)
        return allowed

    def forget(self, session_id: str) -> None:
        for key in [key for key in self._answers if key[0] == session_id]:
            del self._answers[key]
