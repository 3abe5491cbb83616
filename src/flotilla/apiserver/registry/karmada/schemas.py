"""Small constructors of structural OpenAPI v3 schemas, and the Kubernetes types Karmada embeds.

The Karmada CRDs are written as Python calls (`obj({...}, required=[...])`, `string(enum=...)`)
rather than pages of YAML: the shape of each kind reads at a glance, shared types (label
selectors, tolerations, taints, conditions, quantities) are defined once, and every node comes out
structural by construction — typed, no `$ref`, raw JSON only where marked.

What the API server does with these schemas: unknown fields are pruned, so every field Karmada
users set must be declared; `default`s are filled in on write; `enum`, `minimum`, `minLength`,
`maxLength`, `pattern` and `required` are checked and reported as field errors. Server-side apply
reads the `x-kubernetes-map-type` and `x-kubernetes-list-type` markers: the Kubernetes types that
Go marks atomic (a `LabelSelector`, a `NodeSelector` and their requirement lists) carry the same
markers as in Karmada's generated CRDs, so a second manager's selector replaces the first one's
instead of merging with it. `tests/integration/data/karmada_fields.json` holds Karmada's CRDs as
facts, and `docs/design/karmada-parity.md` lists where ours differ and why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Schema = dict[str, Any]

QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)"
    r"|(\.[0-9]+))))?$"
)


def _described(node: Schema, description: str) -> Schema:
    if description:
        node["description"] = description
    return node


def obj(
    properties: Mapping[str, Schema] | None = None,
    description: str = "",
    *,
    required: Iterable[str] = (),
) -> Schema:
    """An object with declared fields (unknown ones are pruned)."""
    node: Schema = {"type": "object"}
    if properties:
        node["properties"] = dict(properties)
    names = sorted(required)
    if names:
        node["required"] = names
    return _described(node, description)


def string(
    description: str = "",
    *,
    enum: Iterable[str] | None = None,
    default: str | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    pattern: str | None = None,
    format: str | None = None,
) -> Schema:
    node: Schema = {"type": "string"}
    if enum is not None:
        node["enum"] = [str(value) for value in enum]  # plain strings, not StrEnum members
    for key, value in (
        ("default", None if default is None else str(default)),
        ("minLength", min_length),
        ("maxLength", max_length),
        ("pattern", pattern),
        ("format", format),
    ):
        if value is not None:
            node[key] = value
    return _described(node, description)


def integer(
    description: str = "",
    *,
    bits: int | None = 32,
    minimum: int | None = None,
    default: int | None = None,
) -> Schema:
    """An integer; `bits=None` for Go's `int`, which Karmada's CRDs declare without a format."""
    node: Schema = {"type": "integer"}
    if bits is not None:
        node["format"] = f"int{bits}"
    if minimum is not None:
        node["minimum"] = minimum
    if default is not None:
        node["default"] = default
    return _described(node, description)


def boolean(description: str = "") -> Schema:
    return _described({"type": "boolean"}, description)


def array(
    items: Schema, description: str = "", *, min_items: int | None = None, list_type: str | None = None
) -> Schema:
    """A list; `list_type` is its `x-kubernetes-list-type` (none: atomic, as Kubernetes reads it)."""
    node: Schema = {"type": "array", "items": items}
    if min_items is not None:
        node["minItems"] = min_items
    if list_type is not None:
        node["x-kubernetes-list-type"] = list_type
    return _described(node, description)


def strings(description: str = "", *, list_type: str | None = None) -> Schema:
    """A list of strings."""
    return array({"type": "string"}, description, list_type=list_type)


def atomic(node: Schema) -> Schema:
    """An object server-side apply owns as a whole (Go's `+structType=atomic`)."""
    node["x-kubernetes-map-type"] = "atomic"
    return node


def string_map(description: str = "") -> Schema:
    """A map of strings (labels, annotations, node selectors)."""
    return _described({"type": "object", "additionalProperties": {"type": "string"}}, description)


def raw_object(description: str = "") -> Schema:
    """An embedded object kept as it is (a manifest, a member's status)."""
    return _described({"type": "object", "x-kubernetes-preserve-unknown-fields": True}, description)


def any_json(description: str = "") -> Schema:
    """Any JSON value at all (apiextensions' `JSON`): an object, a list, a string, a number."""
    return _described({"x-kubernetes-preserve-unknown-fields": True}, description)


def date_time(description: str = "") -> Schema:
    return string(description, format="date-time")


def quantity(description: str = "") -> Schema:
    """A resource quantity (`"500m"`, `"2Gi"`, a bare number), as controller-gen writes `Quantity`."""
    node: Schema = {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": True,
        "pattern": QUANTITY_PATTERN,
    }
    return _described(node, description)


def resource_list(description: str = "") -> Schema:
    """Quantities by resource name (`cpu`, `memory`, `pods`…)."""
    return _described({"type": "object", "additionalProperties": quantity()}, description)


# --- Kubernetes types -------------------------------------------------------------------------------


def label_selector(description: str = "") -> Schema:
    """A `metav1.LabelSelector`: atomic, with atomic lists, as Kubernetes marks it."""
    requirement = obj(
        {"key": string(), "operator": string(), "values": strings(list_type="atomic")},
        required=["key", "operator"],
    )
    return atomic(
        obj(
            {"matchLabels": string_map(), "matchExpressions": array(requirement, list_type="atomic")},
            description or "A label query: matchLabels and matchExpressions, ANDed.",
        )
    )


def node_selector_requirement() -> Schema:
    return obj(
        {"key": string(), "operator": string(), "values": strings(list_type="atomic")},
        required=["key", "operator"],
    )


def node_selector(description: str = "") -> Schema:
    """A `corev1.NodeSelector`: atomic all the way down, as Kubernetes marks it."""
    term = atomic(
        obj(
            {
                "matchExpressions": array(node_selector_requirement(), list_type="atomic"),
                "matchFields": array(node_selector_requirement(), list_type="atomic"),
            }
        )
    )
    return atomic(
        obj(
            {"nodeSelectorTerms": array(term, list_type="atomic")},
            description,
            required=["nodeSelectorTerms"],
        )
    )


def toleration() -> Schema:
    return obj(
        {
            "key": string("The taint key tolerated; empty with operator Exists tolerates every taint."),
            "operator": string("Exists or Equal (the default)."),
            "value": string(),
            "effect": string("NoSchedule, PreferNoSchedule or NoExecute; empty matches all effects."),
            "tolerationSeconds": integer("How long a NoExecute taint is tolerated.", bits=64),
        }
    )


def taint() -> Schema:
    return obj(
        {
            "key": string(),
            "value": string(),
            "effect": string("NoSchedule, PreferNoSchedule or NoExecute."),
            "timeAdded": date_time("When a NoExecute taint was added."),
        },
        required=["key", "effect"],
    )


def condition() -> Schema:
    """A `metav1.Condition`, with the rules every Kubernetes API puts on it."""
    return obj(
        {
            "type": string(
                max_length=316,
                pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
            ),
            "status": string(enum=["True", "False", "Unknown"]),
            "observedGeneration": integer(bits=64, minimum=0),
            "lastTransitionTime": date_time(),
            "reason": string(
                min_length=1, max_length=1024, pattern=r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"
            ),
            "message": string(max_length=32768),
        },
        required=["type", "status", "lastTransitionTime", "reason", "message"],
    )


def conditions(description: str = "") -> Schema:
    """metav1.Condition list: a list-map keyed by `type`, so each writer (server-side apply) owns its own.

    Karmada's bindings and Works leave the list unmarked (its controllers read, modify and update);
    ours apply their own conditions, so the marker stays (`docs/design/karmada-parity.md`)."""
    schema = array(condition(), description)
    schema["x-kubernetes-list-type"] = "map"
    schema["x-kubernetes-list-map-keys"] = ["type"]
    return schema


# --- the CustomResourceDefinition around a schema ---------------------------------------------------


def column(name: str, json_path: str, column_type: str = "string", *, priority: int = 0) -> dict[str, Any]:
    """An `additionalPrinterColumns` entry (priority 1: shown by `-o wide` only)."""
    entry: dict[str, Any] = {"name": name, "type": column_type, "jsonPath": json_path}
    if priority:
        entry["priority"] = priority
    return entry


AGE = column("AGE", ".metadata.creationTimestamp", "date")


def custom_resource_definition(
    *,
    group: str,
    version: str,
    kind: str,
    plural: str,
    namespaced: bool,
    schema: Schema,
    short_names: Iterable[str] = (),
    categories: Iterable[str] = (),
    columns: Iterable[dict[str, Any]] = (),
    status: bool = False,
) -> dict[str, Any]:
    """An apiextensions.k8s.io/v1 CRD serving (and storing) one version of one kind."""
    names: dict[str, Any] = {
        "kind": kind,
        "listKind": f"{kind}List",
        "plural": plural,
        "singular": kind.lower(),
    }
    if short_names:
        names["shortNames"] = list(short_names)
    if categories:
        names["categories"] = list(categories)
    served: dict[str, Any] = {
        "name": version,
        "served": True,
        "storage": True,
        "schema": {"openAPIV3Schema": schema},
    }
    if columns:
        served["additionalPrinterColumns"] = list(columns)
    if status:
        served["subresources"] = {"status": {}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": names,
            "scope": "Namespaced" if namespaced else "Cluster",
            "versions": [served],
        },
    }


def kind_schema(description: str, spec: Schema, status: Schema | None = None) -> Schema:
    """The root schema of a kind: apiVersion, kind, metadata, a required spec, an optional status."""
    properties: dict[str, Schema] = {
        "apiVersion": string("The versioned schema of this representation of an object."),
        "kind": string("The REST resource this object represents."),
        "metadata": {"type": "object"},
        "spec": spec,
    }
    if status is not None:
        properties["status"] = status
    return obj(properties, description, required=["spec"])
