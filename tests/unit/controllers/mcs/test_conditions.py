"""A ServiceExport's Valid, Ready and Conflict conditions, and their transition times."""

from __future__ import annotations

from flotilla.api.multicluster import ExportReason
from flotilla.controllers.mcs.conditions import export_conditions, same_conditions, stamped
from flotilla.controllers.mcs.exports import MergedImport, validity

MERGED = MergedImport(spec={}, labels={}, annotations={}, clusters=("a",))


def by_type(conditions: list[dict[str, object]]) -> dict[object, tuple[object, object]]:
    return {c["type"]: (c["status"], c["reason"]) for c in conditions}


def test_a_valid_imported_export_is_ready_without_conflicts() -> None:
    found = export_conditions(validity({"spec": {}}), MERGED, "a", imported=True)
    assert by_type(found) == {
        "Valid": ("True", "Valid"),
        "Ready": ("True", "Exported"),
        "Conflict": ("False", "NoConflicts"),
    }


def test_conflict_reasons_are_comma_joined() -> None:
    merged = MergedImport(
        spec={},
        labels={},
        annotations={},
        clusters=("a", "b"),
        conflicts=(ExportReason.PORT_CONFLICT, ExportReason.TYPE_CONFLICT),
        conflicting_clusters=("b",),
    )
    found = by_type(export_conditions(validity({"spec": {}}), merged, "b", imported=True))
    assert found["Conflict"] == ("True", "PortConflict,TypeConflict")


def test_an_invalid_export_is_not_ready_and_has_no_conflict_condition() -> None:
    found = by_type(
        export_conditions(validity({"spec": {"type": "ExternalName"}}), None, "a", imported=False)
    )
    assert found == {"Valid": ("False", "InvalidServiceType"), "Ready": ("False", "Failed")}


def test_transition_times_move_only_when_the_status_does() -> None:
    first = stamped(export_conditions(validity(None), None, "a", imported=False), None, "T1")
    again = stamped(export_conditions(validity(None), None, "a", imported=False), first, "T2")
    assert {c["lastTransitionTime"] for c in again} == {"T1"}
    assert same_conditions(export_conditions(validity(None), None, "a", imported=False), again)
    fixed = stamped(export_conditions(validity({"spec": {}}), MERGED, "a", imported=True), first, "T3")
    assert {c["type"]: c["lastTransitionTime"] for c in fixed} == {
        "Valid": "T3",
        "Ready": "T3",
        "Conflict": "T3",
    }
