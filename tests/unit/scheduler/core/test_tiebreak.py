"""Replica ties are broken by the template's UID, as Karmada's `tieBreakerByUID` breaks them.

Karmada (`pkg/util/helper/binding.go`): when two clusters have the same Webster priority, the one
with fewer seats wins; with equal seats too, names are compared ascending — or descending when
`fnv.New32a()` of `spec.resource.uid` (the resource template's UID) has an odd `Sum32()`; an empty
UID is ascending. Every expected split below is worked out by hand from that rule, seat by seat.
"""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.scheduler.core.apportionment import fnv32a
from flotilla.scheduler.core.division import assign_replicas
from flotilla.scheduler.core.inputs import ClusterInfo
from tests.unit.scheduler.manifests import binding, cluster, dynamic_weights, static_weights

ODD = "0b6f3c2e-5d0a-4c55-9a8e-3f1d2b7c9e10"
"""A template UID whose FNV-1a hash (0x80ffcb57) is odd: tied names descending."""
EVEN = "7e2a9d14-8c3b-4f6e-a1d2-5b9c0e4f8a37"
"""A template UID whose FNV-1a hash (0x27536cf8) is even: tied names ascending."""
M1, M2, M3 = "member1", "member2", "member3"
THREE = [cluster(M1), cluster(M2), cluster(M3)]
AGGREGATED = dynamic_weights(aggregated=True)


def test_the_two_uids_have_the_parities_the_table_assumes() -> None:
    """The hashes by FNV-1a 32-bit (Go's hash/fnv New32a), whose low bit picks the order."""
    assert fnv32a(ODD.encode()) == 0x80FFCB57
    assert fnv32a(EVEN.encode()) == 0x27536CF8


# Each case: replicas, placement, candidate clusters, available replicas, previous result,
# then the split with an even (ascending) and with an odd (descending) template UID.
Split = dict[str, int]
CASES: list[tuple[str, int, dict[str, Any], list[ClusterInfo], Split, Split, Split, Split]] = [
    # 1:1, 3 replicas: seats go m1, m2 (equal priority 1, name order), then both at 1/3 with one
    # seat each: the third goes to the first name in the order.
    ("static 1:1, 3 replicas", 3, static_weights({M1: 1, M2: 1}), THREE[:2], {}, {},
     {M1: 2, M2: 1}, {M1: 1, M2: 2}),
    # Three equal clusters, 4 replicas: one each, the fourth to the first name in the order.
    ("static 1:1:1, 4 replicas", 4, static_weights({M1: 1, M2: 1, M3: 1}), THREE, {}, {},
     {M1: 2, M2: 1, M3: 1}, {M1: 1, M2: 1, M3: 2}),
    # 5 replicas: one each, then the fourth and fifth to the first two names in the order.
    ("static 1:1:1, 5 replicas", 5, static_weights({M1: 1, M2: 1, M3: 1}), THREE, {}, {},
     {M1: 2, M2: 2, M3: 1}, {M1: 1, M2: 2, M3: 2}),
    # 2:1:1, 2 replicas: m1 (priority 2) first; then m1 2/3 < m2 = m3 = 1, equal seats: name order.
    ("static 2:1:1, 2 replicas", 2, static_weights({M1: 2, M2: 1, M3: 1}), THREE, {}, {},
     {M1: 1, M2: 1}, {M1: 1, M3: 1}),
    # 1:3, 2 replicas: m2 (3) first; then m1 1/1 = m2 3/3 — a priority tie the party with fewer
    # seats wins before any name order: m1, whatever the UID.
    ("static 1:3, fewer seats first", 2, static_weights({M1: 1, M2: 3}), THREE[:2], {}, {},
     {M1: 1, M2: 1}, {M1: 1, M2: 1}),
    # 1:2, 3 replicas: m2 (2), m1 (1 > 2/3), m2 (2/3 > 1/3): no tie at all.
    ("static 1:2, no tie", 3, static_weights({M1: 1, M2: 2}), THREE[:2], {}, {},
     {M1: 1, M2: 2}, {M1: 1, M2: 2}),
    # Dynamic weights, first schedule: 3 replicas by room 10:10 — as static 1:1.
    ("dynamic 10:10, 3 replicas", 3, dynamic_weights(), THREE[:2], {M1: 10, M2: 10}, {},
     {M1: 2, M2: 1}, {M1: 1, M2: 2}),
    # Aggregated: 9 replicas, room 5:5 — both clusters are needed, 4 each and the ninth tied.
    ("aggregated 5:5, 9 replicas", 9, AGGREGATED, THREE[:2], {M1: 5, M2: 5}, {},
     {M1: 5, M2: 4}, {M1: 4, M2: 5}),
    # Steady scale down from 2/2 to 3: the previous counts are the weights, 2:2 — the tie again.
    ("scale down 2:2 to 3", 3, dynamic_weights(), THREE[:2], {M1: 10, M2: 10}, {M1: 2, M2: 2},
     {M1: 2, M2: 1}, {M1: 1, M2: 2}),
    # Steady scale up from 1/1 to 3: only the new replica is apportioned, by room 10:10.
    ("scale up 1:1 to 3", 3, dynamic_weights(), THREE[:2], {M1: 10, M2: 10}, {M1: 1, M2: 1},
     {M1: 2, M2: 1}, {M1: 1, M2: 2}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("replicas", "placement", "candidates", "available", "previous", "ascending", "descending"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_ties_follow_the_template_uid_parity(
    replicas: int,
    placement: dict[str, Any],
    candidates: list[ClusterInfo],
    available: dict[str, int],
    previous: dict[str, int],
    ascending: dict[str, int],
    descending: dict[str, int],
) -> None:
    """An even template UID hands tied replicas to names in ascending order, an odd one descending."""
    for template_uid, expected in ((EVEN, ascending), (ODD, descending)):
        info = binding(replicas=replicas, placement=placement, clusters=previous, template_uid=template_uid)
        split = {target.name: target.replicas for target in assign_replicas(info, candidates, available)}
        assert split == expected, template_uid


@pytest.mark.parametrize(
    ("binding_uid", "template_uid", "expected"),
    [
        (ODD, EVEN, {M1: 2, M2: 1}),
        (EVEN, ODD, {M1: 1, M2: 2}),
        (ODD, "", {M1: 2, M2: 1}),
    ],
    ids=["odd binding, even template", "even binding, odd template", "odd binding, no template uid"],
)
def test_the_template_uid_decides_not_the_bindings(
    binding_uid: str, template_uid: str, expected: dict[str, int]
) -> None:
    """The binding's own UID plays no part; an empty template UID is ascending (Karmada's `len(uid) == 0`)."""
    info = binding(
        replicas=3, placement=static_weights({M1: 1, M2: 1}), uid=binding_uid, template_uid=template_uid
    )
    split = {target.name: target.replicas for target in assign_replicas(info, THREE[:2], {})}
    assert split == expected
