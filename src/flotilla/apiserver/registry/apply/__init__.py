"""Server-side apply and managedFields, as pure functions over decoded JSON objects.

The API server calls `apply` for `application/apply-patch+yaml` PATCHes and `record_update` for
every other write, then stores the object with the managedFields they return. Both take the kind's
`Schema` (None for kinds without one), whose `x-kubernetes-list-type`, `-list-map-keys` and
`-map-type` decide how lists and maps merge and are owned, and follow Kubernetes'
structured-merge-diff and field manager (see `operations` for the rules).

The modules, bottom up: `jsonvalues` (JSON as Go writes it), `fieldpath` (paths, `FieldSet`,
FieldsV1), `atoms` (how a schema node is treated), `fieldsets` (fields an object sets, comparing,
removing), `merge`, `managedfields` (the entries and request-level rules), `conflicts`,
`lastapplied` (the client-side apply hand-over) and `operations`.
"""

from flotilla.apiserver.registry.apply.atoms import InvalidObjectError
from flotilla.apiserver.registry.apply.conflicts import FIELD_MANAGER_CONFLICT, ApplyConflict, Conflict
from flotilla.apiserver.registry.apply.fieldpath import FieldSet, FieldsV1Error, Path, describe_path
from flotilla.apiserver.registry.apply.fieldsets import (
    Comparison,
    compare,
    default_reset_fields,
    fields_of,
    raw_fields_of,
)
from flotilla.apiserver.registry.apply.lastapplied import LAST_APPLIED_ANNOTATION
from flotilla.apiserver.registry.apply.managedfields import (
    APPLY,
    UPDATE,
    managed_fields_equal_ignoring_time,
    managed_fields_for_write,
    strip_time_only_changes,
    validate_managed_fields,
)
from flotilla.apiserver.registry.apply.operations import ApplyError, ApplyResult, apply, record_update

__all__ = [
    "APPLY",
    "FIELD_MANAGER_CONFLICT",
    "LAST_APPLIED_ANNOTATION",
    "UPDATE",
    "ApplyConflict",
    "ApplyError",
    "ApplyResult",
    "Comparison",
    "Conflict",
    "FieldSet",
    "FieldsV1Error",
    "InvalidObjectError",
    "Path",
    "apply",
    "compare",
    "default_reset_fields",
    "describe_path",
    "fields_of",
    "managed_fields_equal_ignoring_time",
    "managed_fields_for_write",
    "raw_fields_of",
    "record_update",
    "strip_time_only_changes",
    "validate_managed_fields",
]
