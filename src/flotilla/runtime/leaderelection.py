"""Leader election on a `coordination.k8s.io/v1` Lease, as client-go's `leaderelection` package does it.

Several controller managers may run against one hub (a standby for each active one); only the
holder of the Lease `kube-system/flotilla-controller-manager` runs controllers. Each candidate
names itself `<hostname>_<uuid>` and, every retry period, reads the Lease and `decide`s:

- no Lease: create it, holding it (`CREATE`);
- held by us: renew it (`RENEW`), keeping `acquireTime` and `leaseTransitions`;
- held by nobody, or by someone whose record has not changed for its `leaseDurationSeconds`:
  take it over (`ACQUIRE`), counting one more `leaseTransitions`;
- otherwise: wait (`WAIT`).

"Has not changed for its duration" is measured on our own monotonic clock, from when we first saw
the current record (client-go's `observedTime`), never by comparing the holder's `renewTime` with
our wall clock, so candidates with skewed clocks still agree. Every write carries the
resourceVersion of the copy it was decided from: of two candidates racing for an expired Lease, one
gets a Conflict and waits.

The leader renews every retry period. A renewal round that has not succeeded within the renew
deadline (a hub that does not answer, or another candidate that took the Lease) means leadership
is lost: `hold` returns and the caller stops acting — the controller manager exits non-zero, as
kube-controller-manager does, so its supervisor restarts it as a standby. A leader that stops
cleanly `release`s the Lease (no holder, `leaseDurationSeconds: 1`) so a standby takes over at
its next retry instead of waiting out the lease.

`decide` and `released` are pure; `LeaderElector` does the reading and writing.
"""

from __future__ import annotations

import asyncio
import random
import socket
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import structlog

from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_micro_time
from flotilla.client import AlreadyExists, Conflict
from flotilla.client.interfaces import ReadWriter
from flotilla.runtime.clock import Clock, SystemClock

log = structlog.get_logger("flotilla.runtime.leaderelection")

LEASE = GroupVersionKind("coordination.k8s.io", "v1", "Lease")
JITTER_FACTOR = 1.2
"""client-go's: the retry period must exceed renew deadline / this, and acquisition retries are
spread over up to 20% more than the retry period."""


@dataclass(frozen=True, slots=True)
class LeaderElectionConfig:
    """Where the Lease is and how long its terms are; defaults are kube-controller-manager's."""

    identity: str
    """This candidate's name in `holderIdentity` (`<hostname>_<uuid>`, see `default_identity`)."""
    namespace: str = "kube-system"
    name: str = "flotilla-controller-manager"
    lease_duration: float = 15.0
    """Seconds a standby waits, after the holder's record last changed, before taking over."""
    renew_deadline: float = 10.0
    """Seconds the leader keeps trying to renew before it gives leadership up."""
    retry_period: float = 2.0
    """Seconds between attempts to acquire or renew."""

    def __post_init__(self) -> None:
        if not self.identity:
            raise ValueError("leader election needs an identity")
        if self.lease_duration <= self.renew_deadline:
            raise ValueError("the lease duration must be greater than the renew deadline")
        if self.renew_deadline <= JITTER_FACTOR * self.retry_period:
            raise ValueError(f"the renew deadline must exceed {JITTER_FACTOR} times the retry period")
        if self.retry_period <= 0:
            raise ValueError("the retry period must be positive")


def default_identity() -> str:
    """`<hostname>_<uuid>`: unique per process, readable as to which host holds the Lease."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


# -- the record and the decision (pure) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeaderElectionRecord:
    """What a Lease's spec says about its holder (client-go's `LeaderElectionRecord`)."""

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: str = ""
    renew_time: str = ""
    lease_transitions: int = 0

    @classmethod
    def from_lease(cls, lease: Mapping[str, Any]) -> LeaderElectionRecord:
        spec = lease.get("spec") or {}
        return cls(
            holder_identity=str(spec.get("holderIdentity") or ""),
            lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
            acquire_time=str(spec.get("acquireTime") or ""),
            renew_time=str(spec.get("renewTime") or ""),
            lease_transitions=int(spec.get("leaseTransitions") or 0),
        )

    def spec(self) -> dict[str, Any]:
        """The Lease spec saying this record (a released Lease has no holder)."""
        spec: dict[str, Any] = {
            "leaseDurationSeconds": self.lease_duration_seconds,
            "acquireTime": self.acquire_time or None,
            "renewTime": self.renew_time or None,
            "leaseTransitions": self.lease_transitions,
        }
        if self.holder_identity:
            spec["holderIdentity"] = self.holder_identity
        return spec


@dataclass(frozen=True, slots=True)
class Observation:
    """A record as we last saw it, and when (our monotonic seconds) we first saw it so."""

    record: LeaderElectionRecord
    observed_at: float

    def expired(self, now: float) -> bool:
        return self.observed_at + self.record.lease_duration_seconds <= now


class Action(StrEnum):
    CREATE = "create"
    """No Lease yet: create it, held by us."""
    ACQUIRE = "acquire"
    """Free or expired: take it over."""
    RENEW = "renew"
    """Ours: renew it."""
    WAIT = "wait"
    """Someone else's and still valid."""


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    observation: Observation | None
    """What to remember having seen (None: no Lease was seen)."""
    record: LeaderElectionRecord | None
    """What to write (None for `WAIT`)."""


def decide(
    current: LeaderElectionRecord | None,
    previous: Observation | None,
    *,
    identity: str,
    lease_duration: float,
    now: float,
    timestamp: str,
) -> Decision:
    """What candidate `identity` does on reading `current` (None: no Lease) at monotonic `now`.

    `previous` is what it saw last time; `timestamp` is the wall-clock MicroTime to write as
    `renewTime` (and `acquireTime` when acquiring). `lease_duration` is the term it declares.
    """
    seconds = max(1, round(lease_duration))
    if current is None:
        return Decision(
            Action.CREATE, previous, LeaderElectionRecord(identity, seconds, timestamp, timestamp, 0)
        )
    unchanged = previous is not None and previous.record == current
    observation = previous if previous is not None and unchanged else Observation(current, now)
    holder = current.holder_identity
    if holder == identity:
        renewed = replace(current, lease_duration_seconds=seconds, renew_time=timestamp)
        return Decision(Action.RENEW, observation, renewed)
    if holder and not observation.expired(now):
        return Decision(Action.WAIT, observation, None)
    acquired = LeaderElectionRecord(identity, seconds, timestamp, timestamp, current.lease_transitions + 1)
    return Decision(Action.ACQUIRE, observation, acquired)


def released(current: LeaderElectionRecord, timestamp: str) -> LeaderElectionRecord:
    """The record a leader leaves when it steps down: no holder, a one-second term (client-go's)."""
    return LeaderElectionRecord(
        holder_identity="",
        lease_duration_seconds=1,
        acquire_time=timestamp,
        renew_time=timestamp,
        lease_transitions=current.lease_transitions,
    )


# -- the loop (I/O) ----------------------------------------------------------------------------------


class LeaderElector:
    """Acquires, holds and releases the Lease for one candidate."""

    def __init__(
        self,
        client: ReadWriter,
        config: LeaderElectionConfig,
        *,
        clock: Clock | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self.config = config
        self._clock = clock or SystemClock()
        self._monotonic = monotonic
        self._observation: Observation | None = None
        self._lease: dict[str, Any] | None = None
        self.is_leader = False

    @property
    def holder(self) -> str:
        """Who holds the Lease, as last seen ("" when nobody or not seen yet)."""
        return self._observation.record.holder_identity if self._observation is not None else ""

    async def acquire(self) -> None:
        """Return once this candidate holds the Lease (tries every retry period, with jitter)."""
        while True:
            if await self._attempt():
                return
            jitter = random.random() * (JITTER_FACTOR - 1)  # noqa: S311 -- spreading retries, not secrecy
            await asyncio.sleep(self.config.retry_period * (1 + jitter))

    async def hold(self) -> None:
        """Renew every retry period; return when a renewal round missed its deadline (leadership lost)."""
        while True:
            await asyncio.sleep(self.config.retry_period)
            if not await self._renew_round():
                self.is_leader = False
                log.warning(
                    "leader_election.lost",
                    lease=f"{self.config.namespace}/{self.config.name}",
                    identity=self.config.identity,
                    holder=self.holder,
                )
                return

    async def release(self) -> None:
        """Give the Lease up at once, if this candidate holds it (a clean shutdown)."""
        if not self.is_leader or self._lease is None:
            return
        self.is_leader = False
        record = released(LeaderElectionRecord.from_lease(self._lease), format_micro_time(self._clock.now()))
        try:
            await self._client.update(self._with_record(self._lease, record))
        except Exception as exc:
            # The standby then waits out the lease: slower, never wrong.
            log.warning("leader_election.release_failed", error=str(exc) or type(exc).__name__)
            return
        log.info("leader_election.released", lease=f"{self.config.namespace}/{self.config.name}")

    async def _renew_round(self) -> bool:
        """Try to renew, every retry period, until it works or the renew deadline passes."""
        deadline = self._monotonic() + self.config.renew_deadline
        while True:
            remaining = deadline - self._monotonic()
            if remaining <= 0:
                return False
            try:
                async with asyncio.timeout(remaining):
                    if await self._attempt():
                        return True
            except TimeoutError:
                return False
            await asyncio.sleep(min(self.config.retry_period, max(deadline - self._monotonic(), 0)))

    async def _attempt(self) -> bool:
        """One read and (when the decision says so) one write; whether we hold the Lease after it."""
        try:
            return await self._try_acquire_or_renew()
        except (AlreadyExists, Conflict):
            return False  # another candidate wrote first; read again next time
        except TimeoutError:
            raise
        except Exception as exc:
            log.info("leader_election.attempt_failed", error=str(exc) or type(exc).__name__)
            return False

    async def _try_acquire_or_renew(self) -> bool:
        config = self.config
        lease = await self._client.get_or_none(LEASE, config.name, namespace=config.namespace)
        current = LeaderElectionRecord.from_lease(lease) if lease is not None else None
        decision = decide(
            current,
            self._observation,
            identity=config.identity,
            lease_duration=config.lease_duration,
            now=self._monotonic(),
            timestamp=format_micro_time(self._clock.now()),
        )
        self._observation = decision.observation
        if decision.record is None:
            self.is_leader = False
            return False
        if lease is None:
            written = await self._client.create(self._new_lease(decision.record))
        else:
            written = await self._client.update(self._with_record(lease, decision.record))
        self._lease = written
        self._observation = Observation(LeaderElectionRecord.from_lease(written), self._monotonic())
        if not self.is_leader:
            log.info(
                "leader_election.acquired",
                lease=f"{config.namespace}/{config.name}",
                identity=config.identity,
                action=str(decision.action),
                transitions=decision.record.lease_transitions,
            )
        self.is_leader = True
        return True

    def _new_lease(self, record: LeaderElectionRecord) -> dict[str, Any]:
        return {
            "apiVersion": LEASE.api_version,
            "kind": LEASE.kind,
            "metadata": {"name": self.config.name, "namespace": self.config.namespace},
            "spec": record.spec(),
        }

    @staticmethod
    def _with_record(lease: Mapping[str, Any], record: LeaderElectionRecord) -> dict[str, Any]:
        """`lease` saying `record`, with the resourceVersion it was read at (the update's guard)."""
        return {
            "apiVersion": LEASE.api_version,
            "kind": LEASE.kind,
            "metadata": dict(lease.get("metadata") or {}),
            "spec": record.spec(),
        }
