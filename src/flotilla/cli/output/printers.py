"""What `flotilla get` prints: server Tables laid out as kubectl and karmadactl lay them out.

Human output comes from the servers themselves: every hub and member answers a list or get with a
`meta.k8s.io/v1 Table` when asked (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), for
built-in kinds and CRDs alike (a CRD's table is its `additionalPrinterColumns`). The CLI only lays
the cells out, as kubectl's table printer does:

- columns of priority 0, and every column with `-o wide`; names upper-cased; a NAMESPACE column
  first with `--all-namespaces`; the name prefixed `kind.group/` when several types are printed;
- nil cells empty, text cut at its first line break with `...`, numbers and booleans as Go prints
  them; cells aligned by the tabwriter with 3 spaces (`tabwriter.py`); one block per resource,
  blocks separated by a blank line, nothing at all for a resource without rows.

Across clusters (`--operation-scope members|all`) the rows of every cluster share one block, laid
out as karmadactl does: a CLUSTER column after NAME (`Karmada` for the hub's rows) and an ADOPTION
column last — `Y` when the member object carries `karmada.io/managed: "true"` (it was delivered by
a Work), `N` when not, `-` on the hub. Pods show ADOPTION only with `-o wide`, as in karmadactl.

`-o name|yaml|json` print whole objects: `kind.group/name` lines, or one object, or a v1 `List`.
Objects read from a member carry the annotation karmada-search uses to say where a cached object
comes from, `resource.karmada.io/cached-from-cluster`, so a List across clusters stays one document.
"""

from __future__ import annotations

import copy
import decimal
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from flotilla.api.karmada.constants import CACHED_FROM_CLUSTER_ANNOTATION, MANAGED_BY_KARMADA_LABEL
from flotilla.cli.output.names import printed_name, qualified_kind
from flotilla.cli.output.tabwriter import GET_PADDING, align
from flotilla.client.discovery import ResourceInfo

HUB_CLUSTER = "Karmada"
"""The CLUSTER cell of the hub's own rows, as karmadactl names the control plane."""
TABLE_ACCEPT = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,"
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)
"""What kubectl asks for when it prints a table."""

_CELL_BREAKS = "\r\n\f"
_ADOPTED, _NOT_ADOPTED, _HUB_ADOPTION = "Y", "N", "-"


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    priority: int = 0
    format: str = ""


@dataclass(frozen=True, slots=True)
class Row:
    cells: tuple[Any, ...]
    metadata: Mapping[str, Any]
    """The metadata of the row's object (the server includes it by default): namespace, labels."""


@dataclass(frozen=True, slots=True)
class ClusterTable:
    """The Table one cluster answered for one resource."""

    cluster: str
    """The member's name, or HUB_CLUSTER for the hub."""
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class TableOptions:
    wide: bool = False
    all_namespaces: bool = False
    with_kind: bool = False
    """Prefix names with `kind.group/` (several types are printed together)."""
    no_headers: bool = False
    across_clusters: bool = False
    """Add karmadactl's CLUSTER and ADOPTION columns."""


def parse_table(cluster: str, answer: Mapping[str, Any]) -> ClusterTable:
    """A server's `Table` answer (or a page of it) as a ClusterTable."""
    columns = tuple(
        Column(str(c.get("name") or ""), int(c.get("priority") or 0), str(c.get("format") or ""))
        for c in answer.get("columnDefinitions") or []
    )
    rows = []
    for row in answer.get("rows") or []:
        row_object = row.get("object") or {}
        metadata = row_object.get("metadata") if isinstance(row_object, Mapping) else None
        rows.append(Row(tuple(row.get("cells") or ()), metadata if isinstance(metadata, Mapping) else {}))
    return ClusterTable(cluster, columns, tuple(rows))


# --- cells ----------------------------------------------------------------------------------------


def cell_text(value: Any) -> str:
    """A cell as kubectl prints it: nil empty, text cut at a line break, values as Go's `%v`.

    A tab inside a value would split the cell in two; it becomes a space.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        cut = min((value.find(c) for c in _CELL_BREAKS if c in value), default=-1)
        text = value if cut < 0 else value[:cut] + "..."
        return text.replace("\t", " ")
    return _go_value(value).replace("\t", " ")


def _go_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{key}:{_go_value(value[key])}" for key in sorted(value)) + "]"
    if isinstance(value, list | tuple):
        return "[" + " ".join(_go_value(item) for item in value) + "]"
    return str(value)


def _go_float(value: float) -> str:
    """A float as Go's `%v` prints it: the shortest digits, in exponent form below 1e-4 and from 1e6."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0"
    sign, digits, exponent = decimal.Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    decimal_exponent = len(digits) + exponent - 1
    if decimal_exponent < -4 or decimal_exponent >= 6:
        mantissa = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if len(digits) > 1 else "")
        exponent_sign = "-" if decimal_exponent < 0 else "+"
        return f"{'-' if sign else ''}{mantissa}e{exponent_sign}{abs(decimal_exponent):02d}"
    return format(decimal.Decimal(repr(value)).normalize(), "f")


# --- tables ---------------------------------------------------------------------------------------


def _name_column(columns: Sequence[Column]) -> int:
    for position, column in enumerate(columns):
        if column.format == "name":
            return position
    return 0


def _adoption(table: ClusterTable, row: Row) -> str:
    if table.cluster == HUB_CLUSTER:
        return _HUB_ADOPTION
    labels = row.metadata.get("labels") or {}
    return _ADOPTED if labels.get(MANAGED_BY_KARMADA_LABEL) == "true" else _NOT_ADOPTED


def table_lines(resource: ResourceInfo, tables: Sequence[ClusterTable], options: TableOptions) -> list[str]:
    """The tab-separated header and rows of one resource over `tables`; none without rows."""
    if not any(table.rows for table in tables):
        return []
    columns = next((table.columns for table in tables if table.columns), ())
    name_at = _name_column(columns)
    with_namespace = options.all_namespaces and resource.namespaced
    header: list[str] = ["NAMESPACE"] if with_namespace else []
    visible = [i for i, column in enumerate(columns) if options.wide or column.priority == 0]
    show_adoption = options.across_clusters and (options.wide or resource.plural != "pods")
    for position in visible:
        header.append(columns[position].name.upper())
        if options.across_clusters and position == visible[0]:
            header.append("CLUSTER")
    if show_adoption:
        header.append("ADOPTION")
    lines = [] if options.no_headers else ["\t".join(header)]
    for table in tables:
        for row in table.rows:
            cells = list(row.cells[: len(columns)]) + [None] * (len(columns) - len(row.cells))
            if options.with_kind and cells:
                cells[name_at] = (
                    f"{qualified_kind(resource.kind, resource.group)}/{cell_text(cells[name_at])}"
                )
            texts = [str(row.metadata.get("namespace") or "")] if with_namespace else []
            for position in visible:
                texts.append(cell_text(cells[position]))
                if options.across_clusters and position == visible[0]:
                    texts.append(table.cluster)
            if show_adoption:
                texts.append(_adoption(table, row))
            lines.append("\t".join(texts))
    return lines


def render_tables(
    sections: Sequence[tuple[ResourceInfo, Sequence[ClusterTable]]], options: TableOptions
) -> str:
    """Every resource's block, aligned on its own, blocks separated by a blank line."""
    blocks = []
    for resource, tables in sections:
        lines = table_lines(resource, tables, options)
        if lines:
            blocks.append("".join(f"{line}\n" for line in align(lines, GET_PADDING)))
    return "\n".join(blocks)


# --- whole objects --------------------------------------------------------------------------------


def object_name(resource: ResourceInfo, obj: Mapping[str, Any]) -> str:
    """`-o name`: `deployment.apps/nginx`, `pod/web-0`."""
    return printed_name(resource.kind, resource.group, str((obj.get("metadata") or {}).get("name", "")))


def from_cluster(obj: Mapping[str, Any], cluster: str) -> dict[str, Any]:
    """A copy of a member's object annotated with the cluster it was read from."""
    marked = copy.deepcopy(dict(obj))
    metadata = marked.setdefault("metadata", {})
    annotations = metadata.get("annotations") or {}
    metadata["annotations"] = {**annotations, CACHED_FROM_CLUSTER_ANNOTATION: cluster}
    return marked


def with_type(resource: ResourceInfo, obj: Mapping[str, Any]) -> dict[str, Any]:
    """`obj` with its apiVersion and kind, which list items omit on the wire."""
    typed = dict(obj)
    typed.setdefault("apiVersion", resource.api_version)
    typed.setdefault("kind", resource.kind)
    return typed


def without_managed_fields(obj: Mapping[str, Any]) -> dict[str, Any]:
    """`obj` without `metadata.managedFields`, which kubectl hides unless asked."""
    trimmed = dict(obj)
    metadata = trimmed.get("metadata")
    if isinstance(metadata, Mapping) and "managedFields" in metadata:
        trimmed["metadata"] = {key: value for key, value in metadata.items() if key != "managedFields"}
    return trimmed


def as_list(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Several objects as kubectl prints them: one v1 `List`."""
    return {"apiVersion": "v1", "items": list(items), "kind": "List", "metadata": {"resourceVersion": ""}}


class _KubectlYamlDumper(yaml.SafeDumper):
    """YAML as kubectl writes it: strings that need quoting are double-quoted, multi-line ones literal."""

    def choose_scalar_style(self) -> str:
        style = super().choose_scalar_style()
        return '"' if style == "'" else style


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text and not any(c in text for c in "\r\t") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_KubectlYamlDumper.add_representer(str, _represent_text)


def dump_yaml(obj: Any) -> str:
    """`-o yaml`: keys sorted, block style, as kubectl prints."""
    text: str = yaml.dump(
        obj, Dumper=_KubectlYamlDumper, sort_keys=True, default_flow_style=False, allow_unicode=True
    )
    return text


def dump_json(obj: Any) -> str:
    """`-o json`: four-space indentation, keys sorted, HTML characters escaped as Go's encoder does."""
    text = json.dumps(obj, indent=4, sort_keys=True, ensure_ascii=False)
    for character, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(character, escaped)
    return text + "\n"
