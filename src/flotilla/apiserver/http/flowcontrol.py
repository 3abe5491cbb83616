"""Per-user fairness inside the in-flight limits: API Priority and Fairness in its simplest useful form.

The two in-flight limits (`--max-requests-inflight`, `--max-mutating-requests-inflight`) protect the
server, but on their own they are first come, first served: one client sending requests that take
long (a flood of slow lists, a runaway controller) can hold every seat and starve everyone else.
kube-apiserver's answer, API Priority and Fairness, classifies each request by FlowSchema into a
priority level with a share of the server's seats, and inside a level spreads the seats over flows
(usually one per user) with shuffle-sharded fair queues. We keep the part that makes it fair and
drop the parts that need configuration objects and queues:

- **Priority levels** are the two limits: `readOnly` (get, list) and `mutating` (the rest), each
  with its own seats. Long-running requests (watches, proxies, streams) take no seat, as before.
  `system:masters` is kube's `exempt` level: never limited and never counted — the hub's own
  controller manager and simulated clusters act as it, Pull agents and ServiceAccounts do not.
  Health probes (`/healthz`, `/readyz`, `/livez`, from anyone) are exempt too, as kube's `probes`
  FlowSchema makes them: a load balancer must not read a busy server as a dead one.
- **Flows** are users: the authenticated user name, so each ServiceAccount
  (`system:serviceaccount:<ns>:<name>`) and each Pull agent (`system:karmada:agent:<cluster>`) is a
  flow of its own, and everyone anonymous shares one.
- **Fair share**: while `n` flows hold seats of a level (counting the one asking), a flow may hold at
  most `max(minimum, limit // (n + 1))` of them. One user alone gets half the seats, two get a
  third each, and so on: however the flows behave, there is always room for one more user, so a user
  who arrives while another floods is admitted at once rather than after the flooder's requests end
  (seats change hands only when requests finish, and slow requests finish slowly). This is the
  choice that makes the test "a second user's requests all succeed while the first floods" hold
  without a queue; `limit // n` would let a lone flooder take every seat first. The shares shrink
  as users arrive; a flow already above its new share keeps what it holds but gets no more until
  it is back under it. The level's own limit still applies, so with more users than seats, or
  right after a crowd arrives, a request under its share can still meet a full level.
- Past its share — or when the level is full — a request is refused at once with 429
  TooManyRequests, `Retry-After: 1` and kube's message; client-go (kubectl, controllers) retries it.
  There is no queue: a waiting request would hold its connection and memory, and the arithmetic
  above already keeps a seat free for whoever is under their share.

Everything is O(1) per request on the event loop; the table of flows holds only flows that hold a
seat, so it is bounded by the limit, whatever the number of users. Rejections are counted by level,
flow schema (`service-accounts`, `karmada-agents`, `global-default`) and reason — never by user name,
so `/metrics` stays small however many users there are.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field

from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric

from flotilla.api.karmada.agentrbac import AGENT_GROUP
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.users import MASTERS_GROUP

SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"


class FlowSchema(enum.StrEnum):
    """What kind of client a flow is: the `flow_schema` label of the metrics (kube's default names)."""

    EXEMPT = "exempt"
    PROBES = "probes"
    SERVICE_ACCOUNTS = "service-accounts"
    KARMADA_AGENTS = "karmada-agents"
    GLOBAL_DEFAULT = "global-default"


class Rejection(enum.StrEnum):
    """Why a request was refused: the `reason` label of the rejection counter."""

    CONCURRENCY_LIMIT = "concurrency-limit"
    """Every seat of the level is taken."""
    FLOW_SHARE = "flow-share"
    """The user already holds its fair share of the level's seats."""


EXEMPT_LEVEL = "exempt"
READ_ONLY_LEVEL = "readOnly"
MUTATING_LEVEL = "mutating"
EXEMPT_SCHEMAS = frozenset({FlowSchema.EXEMPT, FlowSchema.PROBES})
PROBE_PATHS = ("/healthz", "/readyz", "/livez")


def flow_schema_of(attributes: AuthorizationAttributes) -> FlowSchema:
    """The flow schema a request falls under: health probes by path, the rest by the user's
    groups, as kube's default FlowSchemas match them."""
    groups = attributes.user.groups
    if MASTERS_GROUP in groups:
        return FlowSchema.EXEMPT
    if not attributes.resource_request and _is_probe(attributes.path):
        return FlowSchema.PROBES
    if SERVICE_ACCOUNTS_GROUP in groups:
        return FlowSchema.SERVICE_ACCOUNTS
    if AGENT_GROUP in groups:
        return FlowSchema.KARMADA_AGENTS
    return FlowSchema.GLOBAL_DEFAULT


def _is_probe(path: str) -> bool:
    return any(path == probe or path.startswith(probe + "/") for probe in PROBE_PATHS)


def fair_share(limit: int, flows: int, minimum: int) -> int:
    """Seats one flow may hold while `flows` flows (the asking one counted) hold seats of a level of
    `limit` seats: an equal share with room kept for one more flow, never below `minimum`."""
    return max(minimum, limit // (flows + 1))


@dataclass(slots=True)
class PriorityLevel:
    """The seats of one in-flight limit and who holds them."""

    name: str
    limit: int
    """Seats; 0 means no limit (seats are still counted, for the metrics)."""
    minimum_share: int = 1
    """Seats every flow may hold whatever the number of flows (the level's limit still applies)."""
    fair: bool = True
    """Whether flows are held to their fair share (False: only the level's limit)."""
    executing: int = 0
    held: dict[str, int] = field(default_factory=dict)
    """Seats per flow, for flows holding at least one."""

    def acquire(self, flow: str) -> Rejection | None:
        """Take a seat for `flow`; the reason it cannot have one, or None once it has it."""
        held = self.held.get(flow, 0)
        if self.limit:
            if self.fair:
                flows = len(self.held) + (0 if held else 1)
                if held >= fair_share(self.limit, flows, self.minimum_share):
                    return Rejection.FLOW_SHARE
            if self.executing >= self.limit:
                return Rejection.CONCURRENCY_LIMIT
        self.held[flow] = held + 1
        self.executing += 1
        return None

    def release(self, flow: str) -> None:
        """Give back a seat `flow` holds."""
        held = self.held.get(flow, 0)
        if held <= 1:
            self.held.pop(flow, None)
        else:
            self.held[flow] = held - 1
        self.executing -= 1


@dataclass(slots=True)
class FlowControlMetrics:
    """Counters by (level, schema[, reason]): a few dozen series at most, whatever the users."""

    dispatched: Counter[tuple[str, FlowSchema]] = field(default_factory=Counter)
    rejected: Counter[tuple[str, FlowSchema, Rejection]] = field(default_factory=Counter)
    executing: Counter[tuple[str, FlowSchema]] = field(default_factory=Counter)

    def families(self, levels: list[PriorityLevel]) -> list[Metric]:
        """kube's `apiserver_flowcontrol_*` names where ours is the same concept (one request holds
        one seat, so executing requests and seats are one count), and the flows of the fair share."""
        by_schema = ["priority_level", "flow_schema"]
        dispatched = CounterMetricFamily(
            "apiserver_flowcontrol_dispatched_requests_total",
            "Requests admitted to run, by priority level and flow schema.",
            labels=by_schema,
        )
        for (level, schema), count in sorted(self.dispatched.items()):
            dispatched.add_metric([level, schema], count)
        rejected = CounterMetricFamily(
            "apiserver_flowcontrol_rejected_requests_total",
            "Requests refused with 429, by priority level, flow schema and reason "
            "(concurrency-limit: the level was full; flow-share: the user held its share).",
            labels=[*by_schema, "reason"],
        )
        for (level, schema, reason), count in sorted(self.rejected.items()):
            rejected.add_metric([level, schema, reason], count)
        seats = GaugeMetricFamily(
            "apiserver_flowcontrol_current_executing_seats",
            "Seats held by running requests, by priority level and flow schema.",
            labels=by_schema,
        )
        requests = GaugeMetricFamily(
            "apiserver_flowcontrol_current_executing_requests",
            "Requests running, by priority level and flow schema (each holds one seat).",
            labels=by_schema,
        )
        for (level, schema), count in sorted(self.executing.items()):
            seats.add_metric([level, schema], count)
            requests.add_metric([level, schema], count)
        nominal = GaugeMetricFamily(
            "apiserver_flowcontrol_nominal_limit_seats",
            "Seats of each priority level (0: no limit).",
            labels=["priority_level"],
        )
        flows = GaugeMetricFamily(
            "flotilla_apiserver_flowcontrol_active_flows",
            "Users holding at least one seat of the priority level (the n of the fair share).",
            labels=["priority_level"],
        )
        for priority in levels:
            nominal.add_metric([priority.name], priority.limit)
            flows.add_metric([priority.name], len(priority.held))
        return [dispatched, rejected, seats, requests, nominal, flows]
