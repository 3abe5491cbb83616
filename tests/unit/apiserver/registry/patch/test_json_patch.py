"""JSON Patch (RFC 6902) with kube's bounds: operation count, bytes copied, and nesting depth."""

from __future__ import annotations

import time
from typing import Any

import orjson
import pytest

from flotilla.apiserver.registry.objectbounds import MAX_DEPTH, nesting_depth
from flotilla.apiserver.registry.patch.errors import PatchError
from flotilla.apiserver.registry.patch.json_patch import (
    MAX_COPY_BYTES,
    MAX_OPERATIONS,
    MalformedPatch,
    TooManyOperations,
    apply_operations,
    decode_operations,
    json_equal,
)


def patched(document: Any, patch: list[dict[str, Any]]) -> Any:
    return apply_operations(orjson.loads(orjson.dumps(document)), decode_operations(patch))


def test_each_operation_does_what_rfc_6902_says() -> None:
    """add, remove, replace, move, copy and test, on objects and lists, with escaped pointers."""
    document = {"spec": {"list": [1, 2, 3], "a/b": {"~x": 1}}}
    result = patched(
        document,
        [
            {"op": "add", "path": "/spec/list/1", "value": 9},
            {"op": "add", "path": "/spec/list/-", "value": 4},
            {"op": "remove", "path": "/spec/list/0"},
            {"op": "replace", "path": "/spec/a~1b/~0x", "value": 2},
            {"op": "copy", "from": "/spec/list", "path": "/spec/copied"},
            {"op": "move", "from": "/spec/a~1b", "path": "/moved"},
            {"op": "test", "path": "/spec/copied", "value": [9, 2, 3, 4]},
        ],
    )
    assert result == {"spec": {"list": [9, 2, 3, 4], "copied": [9, 2, 3, 4]}, "moved": {"~x": 2}}


def test_a_patch_over_10000_operations_is_refused_before_any_applies() -> None:
    """kube's maxJSONPatchOperations, with kube's message."""
    operations = [{"op": "test", "path": "", "value": {}}] * (MAX_OPERATIONS + 1)
    with pytest.raises(TooManyOperations, match="maximum operations in a JSON patch is 10000, got 10001"):
        decode_operations(operations)
    assert len(decode_operations(operations[:MAX_OPERATIONS])) == MAX_OPERATIONS


def test_copies_that_double_a_value_stop_at_the_first_past_3_mib_copied() -> None:
    """The D2 patch: 22 copies, each doubling /spec/z; the budget stops it after ~16, in little time."""
    seed = "x" * 50
    operations = [{"op": "add", "path": "/spec", "value": {"z": [seed]}}]
    operations += [{"op": "copy", "from": "/spec/z", "path": "/spec/z/-"} for _ in range(22)]
    started = time.process_time()
    with pytest.raises(PatchError, match="accumulated size increase of copy") as failure:
        patched({}, operations)
    spent = time.process_time() - started
    # The copy that failed is the first whose running total passed the bound: the ones before fit.
    failed_at = int(failure.value.message.split()[3])
    fitted = sum(len(orjson.dumps(_doubled(seed, n))) for n in range(failed_at - 1))
    assert fitted <= MAX_COPY_BYTES < fitted + len(orjson.dumps(_doubled(seed, failed_at - 1)))
    assert spent < 1.0, f"the bounded patch took {spent:.2f} s of CPU"


def _doubled(seed: str, times: int) -> list[Any]:
    value: list[Any] = [seed]
    for _ in range(times):
        value = [*value, orjson.loads(orjson.dumps(value))]
    return value


def test_nothing_may_be_put_deeper_than_the_depth_limit() -> None:
    """Copies into their own child deepen an object by one level each; past the limit, refused."""
    operations = [{"op": "add", "path": "/a", "value": {"b": 1}}]  # two levels
    operations += [{"op": "copy", "from": "/a", "path": "/a/b"} for _ in range(MAX_DEPTH - 2)]
    assert nesting_depth(patched({}, operations)) == MAX_DEPTH
    operations.append({"op": "copy", "from": "/a", "path": "/a/b"})
    with pytest.raises(PatchError, match=f"deeper than {MAX_DEPTH} levels"):
        patched({}, operations)


def test_an_add_of_a_deep_value_at_a_deep_path_is_refused() -> None:
    deep: Any = 1
    for _ in range(MAX_DEPTH - 1):
        deep = {"d": deep}
    with pytest.raises(PatchError, match="deeper than"):
        patched({"a": {"b": {}}}, [{"op": "add", "path": "/a/b/c", "value": deep}])


def test_test_compares_with_json_types() -> None:
    """1 is not 1.0 and true is not 1, as in kube's json-patch (Python says both are equal)."""
    assert not json_equal(1, 1.0)
    assert not json_equal(True, 1)
    assert not json_equal({"a": [1]}, {"a": [True]})
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})
    with pytest.raises(PatchError, match="test failed"):
        patched({"n": 1}, [{"op": "test", "path": "/n", "value": True}])


def test_a_decoded_patch_is_unchanged_by_applying_it() -> None:
    """A write that loses a race applies the same decoded patch again, and must get the same result."""
    operations = decode_operations(
        [{"op": "add", "path": "/a", "value": {"list": [1]}}, {"op": "add", "path": "/a/list/-", "value": 2}]
    )
    first = apply_operations({}, operations)
    second = apply_operations({}, operations)
    assert first == second == {"a": {"list": [1, 2]}}


@pytest.mark.parametrize(
    ("patch", "error"),
    [
        ({"op": "add"}, MalformedPatch),
        (["not an object"], MalformedPatch),
        ([{"op": "frobnicate", "path": "/a"}], PatchError),
        ([{"op": "add", "path": "a", "value": 1}], PatchError),
        ([{"op": "add", "path": "/a"}], PatchError),
        ([{"op": "copy", "path": "/a"}], PatchError),
    ],
)
def test_malformed_patches_are_refused_when_decoded(patch: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        decode_operations(patch)


@pytest.mark.parametrize(
    "operation",
    [
        {"op": "remove", "path": "/missing"},
        {"op": "replace", "path": "/missing", "value": 1},
        {"op": "add", "path": "/list/9", "value": 1},
        {"op": "add", "path": "/list/-1", "value": 1},
        {"op": "remove", "path": "/list/01x"},
        {"op": "add", "path": "/n/x", "value": 1},
        {"op": "move", "from": "/obj", "path": "/obj/inner"},
        {"op": "remove", "path": ""},
    ],
)
def test_operations_that_cannot_apply_raise_patch_errors(operation: dict[str, Any]) -> None:
    with pytest.raises(PatchError, match="does not apply"):
        patched({"list": [1], "n": 1, "obj": {}}, [operation])
