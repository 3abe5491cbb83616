"""Stage selectors: field paths with list traversal and filters, and the matchExpressions operators."""

from __future__ import annotations

import pytest

from flotilla.sim.kubelet.fieldpaths import Match, PathError, parse_path

POD = {
    "metadata": {
        "ownerReferences": [{"kind": "ReplicaSet"}, {"kind": "Job"}],
        "deletionGracePeriodSeconds": 0,
    },
    "spec": {"nodeName": "n1", "hostNetwork": True},
    "status": {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "False"}, {"type": "PodScheduled", "status": "True"}],
    },
}


@pytest.mark.parametrize(
    ("match", "expected"),
    [
        (Match(".status.phase", "In", ("Pending", "Running")), True),
        (Match(".status.phase", "NotIn", ("Running",)), False),
        (Match(".spec.nodeName", "Exists"), True),
        (Match(".metadata.deletionTimestamp", "DoesNotExist"), True),
        (Match(".metadata.deletionTimestamp", "NotIn", ("x",)), True),
        (Match(".metadata.ownerReferences[].kind", "In", ("Job",)), True),
        (Match(".status.conditions[type=Ready].status", "In", ("False",)), True),
        (Match(".status.conditions[type=Missing].status", "Exists"), False),
        (Match(".spec.hostNetwork", "In", ("true",)), True),
        (Match(".metadata.deletionGracePeriodSeconds", "In", ("0",)), True),
        (Match(".status.phase.deeper", "Exists"), False),
    ],
)
def test_matches_read_the_fields_a_path_reaches(match: Match, expected: bool) -> None:
    """A path yields every value it reaches; the operator judges them as kwok's matchExpressions do."""
    assert match.matches(POD) is expected


@pytest.mark.parametrize("path", ["status.phase", ".status..phase", ".status.conditions[type]"])
def test_malformed_paths_are_refused(path: str) -> None:
    """Paths start with a dot, have non-empty segments and filters of the form [field=value]."""
    with pytest.raises(PathError):
        parse_path(path)


def test_values_belong_to_in_and_not_in_only() -> None:
    """In without values, or Exists with values, is a mistake in the stage table."""
    with pytest.raises(PathError):
        Match(".status.phase", "In")
    with pytest.raises(PathError):
        Match(".status.phase", "Exists", ("x",))
    with pytest.raises(PathError):
        Match(".status.phase", "Equals", ("x",))
