"""The token cleaner deletes bootstrap-token Secrets once they expire, and nothing else."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.tokencleaner import TokenCleaner
from flotilla.storage.memory import MemoryBackend
from tests.support.waiting import eventually_async
from tests.unit.apiserver.authn.objects import bootstrap_secret

SECRET = GroupVersionKind("", "v1", "Secret")


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


async def test_expired_tokens_are_deleted_and_others_kept() -> None:
    """An expired token's Secret goes (also one expiring while running); a current one stays."""
    api = EmbeddedAPI(MemoryBackend())
    await api.start()
    client = api.client("test")
    now = datetime.now(UTC)
    await client.create(
        SECRET, bootstrap_secret("aaaaaa", "0123456789abcdef", expiration=stamp(now - timedelta(hours=1)))
    )
    await client.create(
        SECRET, bootstrap_secret("bbbbbb", "0123456789abcdef", expiration=stamp(now + timedelta(hours=1)))
    )
    await client.create(SECRET, bootstrap_secret("cccccc", "0123456789abcdef"))
    cleaner = TokenCleaner(api.context)
    cleaner.start()
    try:
        await client.create(
            SECRET,
            bootstrap_secret("dddddd", "0123456789abcdef", expiration=stamp(now - timedelta(seconds=1))),
        )
        names = await eventually_async(
            lambda: {s["metadata"]["name"] for s in client.list(SECRET, namespace="kube-system")},
            until=lambda names: not names & {"bootstrap-token-aaaaaa", "bootstrap-token-dddddd"},
        )
        assert names == {"bootstrap-token-bbbbbb", "bootstrap-token-cccccc"}
    finally:
        await cleaner.stop()
        await api.stop()
