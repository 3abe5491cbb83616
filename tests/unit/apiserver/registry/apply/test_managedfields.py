"""managedFields validation, the list a write starts from, and ignoring timestamp-only changes."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from flotilla.api.times import format_time
from flotilla.apiserver.registry.apply import (
    managed_fields_equal_ignoring_time,
    managed_fields_for_write,
    strip_time_only_changes,
    validate_managed_fields,
)
from flotilla.apiserver.registry.apply.managedfields import decode_managed_fields, encode_managed_fields
from tests.unit.apiserver.registry.apply.objects import web_deployment


def an_entry(
    manager: str = "kubectl", operation: str = "Apply", time: str = "2024-05-01T10:00:00Z"
) -> dict[str, Any]:
    return {
        "manager": manager,
        "operation": operation,
        "apiVersion": "apps/v1",
        "time": time,
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:replicas": {}}},
    }


def with_managed_fields(entries: Any) -> dict[str, Any]:
    obj = web_deployment()
    obj["metadata"]["managedFields"] = entries
    return obj


def test_well_formed_managed_fields_are_valid() -> None:
    """Entries as kube writes them have no errors, and neither has an absent list."""
    assert validate_managed_fields([an_entry(), an_entry("x", "Update")]) == []
    assert validate_managed_fields(None) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"operation": "Patch"}, "operation must be `Apply` or `Update`"),
        ({"apiVersion": ""}, "apiVersion must not be empty"),
        ({"fieldsType": ""}, "missing fieldsType in managed fields entry 0"),
        ({"fieldsType": "FieldsV2"}, "invalid fieldsType 'FieldsV2'"),
        (
            {"fieldsV1": {"q": {}}},
            "error decoding fieldsV1 of managed fields entry 0: key must be 2 characters",
        ),
        ({"time": "yesterday"}, "must be an RFC 3339 date-time"),
        ({"manager": 7}, "manager in managed fields entry 0 must be a string"),
    ],
)
def test_malformed_entries_are_reported(change: dict[str, Any], message: str) -> None:
    """Each problem kube's decoder rejects gets a message naming the entry."""
    errors = validate_managed_fields([{**an_entry(), **change}])
    assert len(errors) == 1
    assert message in errors[0]


def test_a_list_of_non_objects_is_invalid() -> None:
    """The value must be a list of objects."""
    assert validate_managed_fields("x") == ["managedFields must be a list"]
    assert validate_managed_fields(["x"]) == ["managed fields entry 0 must be an object"]


def test_a_write_keeps_the_live_list_when_its_body_has_none_or_invalid_ones() -> None:
    """Clients that do not know managedFields cannot drop them by accident."""
    live = with_managed_fields([an_entry()])
    assert managed_fields_for_write(live, web_deployment()) == [an_entry()]
    assert managed_fields_for_write(live, with_managed_fields([{"operation": "Oops"}])) == [an_entry()]


def test_a_write_may_replace_or_reset_the_list() -> None:
    """Valid entries in the body replace the live ones; `[]` or `[{}]` clears them."""
    live = with_managed_fields([an_entry()])
    replacement = [an_entry("other", "Update")]
    assert managed_fields_for_write(live, with_managed_fields(replacement)) == replacement
    assert managed_fields_for_write(live, with_managed_fields([])) == []
    assert managed_fields_for_write(live, with_managed_fields([{}])) == []


def test_subresource_writes_always_use_the_live_list() -> None:
    """A status update cannot rewrite managedFields."""
    live = with_managed_fields([an_entry()])
    assert managed_fields_for_write(live, with_managed_fields([]), subresource="status") == [an_entry()]


def test_timestamp_only_changes_are_reverted() -> None:
    """An unchanged object whose entries differ only in time keeps the old timestamps."""
    old = with_managed_fields([an_entry()])
    new = with_managed_fields([an_entry(time="2024-06-01T00:00:00Z")])
    assert managed_fields_equal_ignoring_time(
        old["metadata"]["managedFields"], new["metadata"]["managedFields"]
    )
    assert strip_time_only_changes(old, new) == old


def test_real_changes_keep_their_new_timestamps() -> None:
    """When the object or the ownership changed, the new managedFields stand."""
    old = with_managed_fields([an_entry()])
    changed_object = with_managed_fields([an_entry(time="2024-06-01T00:00:00Z")])
    changed_object["spec"]["replicas"] = 9
    assert strip_time_only_changes(old, changed_object) == changed_object
    changed_owner = with_managed_fields([an_entry(manager="other", time="2024-06-01T00:00:00Z")])
    assert strip_time_only_changes(old, changed_owner) == changed_owner
    assert strip_time_only_changes(None, changed_owner) == changed_owner


def test_encoding_sorts_apply_first_then_by_time_and_manager() -> None:
    """kube's order: operation, time to the second, manager."""
    entries = [
        an_entry("b", "Update", "2024-05-01T09:00:00Z"),
        an_entry("z", "Apply", "2024-05-01T11:00:00Z"),
        an_entry("a", "Update", "2024-05-01T09:00:00Z"),
        an_entry("y", "Apply", "2024-05-01T10:00:00Z"),
    ]
    encoded = encode_managed_fields(decode_managed_fields(entries))
    assert [e["manager"] for e in encoded] == ["y", "z", "a", "b"]


def test_decoding_then_encoding_is_lossless() -> None:
    """A valid list survives a decode/encode round trip unchanged."""
    entries = [an_entry(), {**an_entry("s", "Update"), "subresource": "status"}]
    assert encode_managed_fields(decode_managed_fields(copy.deepcopy(entries))) == entries


def test_fields_v1_that_is_not_an_object_is_invalid_even_when_empty() -> None:
    """`[]` is not a FieldsV1 trie, although it is as empty as `{}`."""
    assert validate_managed_fields([{**an_entry(), "fieldsV1": []}])
    assert validate_managed_fields([{**an_entry(), "fieldsV1": {}}]) == []


def test_the_list_a_write_starts_from_is_its_own() -> None:
    """Adding to the list returned leaves the live object's list as it was."""
    live = with_managed_fields([an_entry()])
    starting = managed_fields_for_write(live, web_deployment())
    starting.append(an_entry("other", "Update"))
    assert live["metadata"]["managedFields"] == [an_entry()]


@pytest.mark.parametrize(
    "moment",
    [
        datetime(2024, 5, 1, 10, 0, 7, 999999, tzinfo=UTC),
        datetime(2024, 12, 31, 23, 30, 0, tzinfo=timezone(timedelta(hours=-3))),
        datetime(2024, 2, 29, 1, 2, 3),  # noqa: DTZ001  # a naive time, which is taken as UTC
    ],
)
def test_times_are_written_in_utc_to_the_second(moment: datetime) -> None:
    """Aware times are converted to UTC, naive ones taken as UTC, fractions dropped."""
    utc = moment.astimezone(UTC) if moment.tzinfo is not None else moment
    assert format_time(moment) == utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_metadata_change_is_not_a_timestamp_only_change() -> None:
    """Labels count as a change even though they sit beside managedFields in metadata."""
    old = with_managed_fields([an_entry()])
    new = with_managed_fields([an_entry(time="2024-06-01T00:00:00Z")])
    new["metadata"]["labels"] = {"app": "other"}
    assert strip_time_only_changes(old, new) == new
