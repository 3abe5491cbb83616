"""The per-session answer to "may this user list bindings everywhere?": asked again after its TTL."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client
from flotilla.dashboard.access import ListAccess

KIND = GroupVersionKind("work.karmada.io", "v1alpha2", "ResourceBinding")
ALICE, BOB = cast(Client, "alice"), cast(Client, "bob")
"""Stand-ins for each user's hub client: the review below answers by them, asking no hub."""


def test_the_hubs_answer_is_kept_per_session_until_its_ttl_and_forgotten_at_sign_out() -> None:
    now = [0.0]
    answers: dict[Any, bool] = {ALICE: True, BOB: False}
    asked: list[Any] = []

    async def review(client: Client, gvk: GroupVersionKind) -> bool:
        asked.append(client)
        return answers[client]

    access = ListAccess(ttl=30, clock=lambda: now[0], review=review)

    async def scenario() -> None:
        assert await access.allows("s1", ALICE, KIND)
        assert not await access.allows("s2", BOB, KIND)
        now[0] = 29
        answers[ALICE] = False  # alice's role binding is removed
        assert await access.allows("s1", ALICE, KIND)  # still within the TTL
        now[0] = 31
        assert not await access.allows("s1", ALICE, KIND)
        access.forget("s2")
        answers[BOB] = True
        assert await access.allows("s2", BOB, KIND)

    asyncio.run(scenario())
    assert asked == ["alice", "bob", "alice", "bob"]
