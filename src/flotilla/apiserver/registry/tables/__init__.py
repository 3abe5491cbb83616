"""Server-side Table printing: what `kubectl get` shows for every kind, rendered as kube-apiserver 1.32 does.

`kubectl get` asks for `meta.k8s.io/v1 Table`s; the server picks the columns and renders each object
into a row of cells. This package is the pure core of that: no I/O, no clock (callers pass `now`).

- `builtin_convertor(group, kind)`: the printer of a built-in kind (one module per API group area:
  `pods`, `core`, `events`, `storage`, `apps`, `batch`, `networking`, `autoscaling`, `policy`,
  `rbac`, `certificates`, `coordination`), or the default table for built-ins without one;
- `default_convertor()`: `Name`, `Created At`, for anything else;
- `custom_resource_convertor(columns)`: a CRD version's `additionalPrinterColumns` (`printercolumns`,
  evaluated with the client-go JSONPath dialect in `jsonpath`), and `printer_column_errors` to
  validate them;
- `aggregated_convertor(group, kind)`: for a kind Karmada serves from its aggregated API server
  (Cluster) and a hub serves as a CRD, that server's printer (`clusters`), which the CRD's columns
  cannot express;
- `human_duration`: Kubernetes' `HumanDuration`, used for every age (it lives in `flotilla.api.duration`,
  which the CLI shares).
"""

from flotilla.api.duration import human_duration
from flotilla.apiserver.registry.tables.clusters import aggregated_convertor
from flotilla.apiserver.registry.tables.jsonpath import JSONPathError, PrinterPath, parse_printer_jsonpath
from flotilla.apiserver.registry.tables.model import Cell, Column, TableConvertor
from flotilla.apiserver.registry.tables.pods import pod_row_conditions
from flotilla.apiserver.registry.tables.printercolumns import custom_resource_convertor, printer_column_errors
from flotilla.apiserver.registry.tables.registry import builtin_convertor, default_convertor

__all__ = [
    "Cell",
    "Column",
    "JSONPathError",
    "PrinterPath",
    "TableConvertor",
    "aggregated_convertor",
    "builtin_convertor",
    "custom_resource_convertor",
    "default_convertor",
    "human_duration",
    "parse_printer_jsonpath",
    "pod_row_conditions",
    "printer_column_errors",
]
