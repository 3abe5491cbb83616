"""What the hub answers from its members' metrics answers: pure, no I/O.

A list merges every member's items in member order, each annotated with its member (Karmada's
`resource.karmada.io/query-from-cluster`); the same pod name in two members stays two items, as
in Karmada (the HPA averages over all of them). A get by name answers the one member that has it:
none is 404 and more than one is 409 Conflict, as Karmada's adapter says when a name is found in
more than one cluster.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.api import resourcemetrics
from flotilla.api.scheme import ResourceType
from flotilla.apiserver import errors

MemberAnswer = tuple[str, Mapping[str, Any]]
"""(member name, the object or list it answered)."""


def annotated(item: Mapping[str, Any], cluster: str) -> dict[str, Any]:
    """A copy of `item` carrying `resource.karmada.io/query-from-cluster: cluster`."""
    metadata = dict(item.get("metadata") or {})
    metadata["annotations"] = {
        **(metadata.get("annotations") or {}),
        resourcemetrics.QUERY_FROM_CLUSTER_ANNOTATION: cluster,
    }
    return {**item, "metadata": metadata}


def merged_list(resource: ResourceType, answers: Sequence[MemberAnswer]) -> dict[str, Any]:
    """One `<Kind>List` of every member's items, annotated, members in the order given."""
    items = [
        annotated(item, cluster)
        for cluster, answer in answers
        for item in answer.get("items") or ()
        if isinstance(item, Mapping)
    ]
    return {
        "kind": resource.list_kind_name,
        "apiVersion": resource.api_version,
        "metadata": {},
        "items": items,
    }


def single(
    resource: ResourceType, namespace: str, name: str, answers: Sequence[MemberAnswer]
) -> dict[str, Any]:
    """The one member's object named `name` (annotated); 404 when none has it, 409 when several do."""
    what = f"{resource.kind.lower()}.{resource.group}"
    shown = f"{namespace}/{name}" if namespace else name
    if not answers:
        raise errors.NotFound(
            f'{what} "{shown}" not found', name=name, group=resource.group, kind=resource.plural
        )
    if len(answers) > 1:
        clusters = ", ".join(cluster for cluster, _ in answers)
        raise errors.Conflict(
            f'{what} "{shown}" is found in more than one cluster ({clusters}): list it with a '
            "fieldSelector of metadata.name to see each",
            name=name,
            group=resource.group,
            kind=resource.plural,
        )
    cluster, answer = answers[0]
    return annotated(answer, cluster)
