"""Webster (Sainte-Laguë) apportionment with Karmada's tie rules: how N replicas split by weights.

Each next seat goes to the party (cluster) with the highest `votes / (2·seats + 1)`. Equal
priorities go to the party with fewer seats, then by name — ascending, or descending when the
32-bit FNV-1a hash of the resource template's UID (the binding's `spec.resource.uid`) is odd
(`names_descending`; an empty UID is ascending), so that across many workloads the odd replica does
not always land on the same cluster while one workload always gets the same answer. This is
Karmada's `tieBreakerByUID` (`pkg/util/helper/binding.go`), used by every division of the
scheduler (static weights, dynamic weights, Aggregated; steady, scale down and fresh) and by the
binding controller's split of a Job's completions. A party that starts with seats but has no votes
keeps its seats and gains none.

Priorities are compared exactly (as fractions), never as floats. Handing out seats one by one
costs O(N log n); for large N the seats that are certainly awarded are given first, which leaves
at most one heap step per party. With `m` parties holding `V` votes, the N-th highest quotient is
never above `U = V / (2N - m)`, so every quotient strictly above `U` is among the first N awarded,
whatever the tie rule — party `i` surely gets the `ceil((v·(2N-m)/V + 1) / 2) - 1` seats whose
quotients exceed `U`, and those add up to at least `N - m`.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from fractions import Fraction

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193
_MASK32 = 0xFFFFFFFF


def fnv32a(data: bytes) -> int:
    """The 32-bit FNV-1a hash of `data` (Go's `hash/fnv.New32a`)."""
    value = _FNV32_OFFSET
    for byte in data:
        value = ((value ^ byte) * _FNV32_PRIME) & _MASK32
    return value


def names_descending(template_uid: str) -> bool:
    """Karmada's tie order for a workload: descending names when FNV-1a of its template's UID is odd,
    ascending when it is even or there is no UID."""
    return bool(template_uid) and fnv32a(template_uid.encode()) % 2 == 1


def webster(
    seats: int,
    votes: Mapping[str, int],
    *,
    initial: Mapping[str, int] | None = None,
    descending_names: bool = False,
) -> dict[str, int]:
    """Every party's seats after `seats` more are handed out; parties come from `votes` and `initial`."""
    start = dict.fromkeys(votes, 0)
    if initial:
        start.update(initial)
    if not start:
        return {}
    ballots = {name: max(votes.get(name, 0), 0) for name in start}
    remaining = max(seats, 0)
    if not initial:
        remaining -= _certain_seats(remaining, ballots, start)
    names = sorted(start, reverse=descending_names)
    rank = {name: position for position, name in enumerate(names)}
    heap = [(-Fraction(ballots[name], 2 * start[name] + 1), start[name], rank[name], name) for name in names]
    heapq.heapify(heap)
    for _ in range(remaining):
        _, held, position, name = heap[0]
        held += 1
        start[name] = held
        heapq.heapreplace(heap, (-Fraction(ballots[name], 2 * held + 1), held, position, name))
    return start


def _certain_seats(seats: int, ballots: Mapping[str, int], assigned: dict[str, int]) -> int:
    """Give every party the seats it surely wins (see the module docstring); return how many."""
    total = sum(ballots.values())
    voting = sum(1 for count in ballots.values() if count > 0)
    spread = 2 * seats - voting
    if total <= 0 or spread <= 0:
        return 0
    given = 0
    for name, count in ballots.items():
        if count <= 0:
            continue
        certain = math.ceil((Fraction(count * spread, total) + 1) / 2) - 1
        assigned[name] = certain
        given += certain
    return given
