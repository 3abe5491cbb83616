"""The cost of evaluating rules, counted as kube-apiserver counts it, and the limits that stop it.

kube-apiserver limits one evaluation of a rule (PerCallLimit, 1,000,000) and all rules of one object
(RuntimeCELCostBudget, 10,000,000). The evaluator adds to `spent` as it works and calls `check`
wherever work is not bounded by the rule's length; `check` raises once `spent` passes `limit`,
which is the smallest of what is left of each bound — including, for an evaluation that runs on the
event loop, the slice it may take there before moving to a worker thread.
"""

from __future__ import annotations

import enum

PER_CALL_LIMIT = 1_000_000
PER_OBJECT_LIMIT = 10_000_000
ESTIMATED_RULE_LIMIT = 10_000_000
"""A rule whose estimated cost exceeds this is refused at CRD create/update (StaticEstimatedCostLimit)."""
ESTIMATED_SCHEMA_LIMIT = 100_000_000
"""All rules of one schema, each times how often it may run (StaticEstimatedCRDCostLimit)."""


class Bound(enum.Enum):
    CALL = "call"
    OBJECT = "object"
    SLICE = "slice"


class CostExceeded(Exception):
    """The evaluation spent what it was allowed; `bound` says which limit."""

    def __init__(self, bound: Bound) -> None:
        super().__init__(bound.value)
        self.bound = bound


class Budget:
    __slots__ = ("bound", "limit", "spent")

    def __init__(self, limit: int, bound: Bound = Bound.CALL) -> None:
        self.spent = 0
        self.limit = limit
        self.bound = bound

    def check(self) -> None:
        if self.spent > self.limit:
            raise CostExceeded(self.bound)

    def charge(self, cost: int) -> None:
        """Add the cost of work about to be done, and stop before doing it if that is too much."""
        self.spent += cost
        if self.spent > self.limit:
            raise CostExceeded(self.bound)
