"""Hostile bodies, patches and parameters (issue 13: D2 JSON patch, D3 YAML, D5, D6 and the lower items).

Each test sends what an attacker or a careless client would, with a deadline, and checks the answer
is a Kubernetes Status with kube's code and a message that says what to fix, that nothing was stored
by a refused write, and — where the request could cost — that /readyz kept answering within 100 ms.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from flotilla.apiserver.registry.objectbounds import MAX_DEPTH, MAX_OBJECT_BYTES
from tests.integration.hostile.probe import Probe
from tests.support.waiting import eventually

NAMESPACE = "default"
CONFIGMAPS = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
DEPLOYMENTS = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments"
WIDGETS = f"/apis/hostile.example.com/v1/namespaces/{NAMESPACE}/widgets"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"
YAML = "application/yaml"
DEADLINE = 20.0

WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.hostile.example.com"},
    "spec": {
        "group": "hostile.example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                },
            }
        ],
    },
}


@pytest.fixture(scope="module")
def widgets(server: Any) -> str:
    """A CRD whose objects keep any field: the way to store deep or big objects of any shape."""
    probe = Probe(server)
    created = probe.send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", WIDGET_CRD)
    assert created.status == 201, created.body
    eventually(lambda: probe.send("GET", WIDGETS).status == 200, what="the widgets resource served")
    return WIDGETS


def widget(name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "hostile.example.com/v1", "kind": "Widget", "metadata": {"name": name}, **fields}


def nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"n": value}
    return value


def deployment(name: str, env_value: str = "v") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [{"name": "c", "image": "i", "env": [{"name": "E", "value": env_value}]}]
                },
            },
        },
    }


def assert_absent(probe: Probe, path: str) -> None:
    assert probe.send("GET", path, timeout=DEADLINE).is_status(404), f"{path} was stored"


# -- D2: JSON patch cost -------------------------------------------------------------------------


def test_a_json_patch_doubling_a_value_by_copies_is_refused_without_freezing_the_server(probe: Probe) -> None:
    """The D2 patch: 22 copies doubling /spec/z then a failing test froze the server for 6 s; now the
    copy budget (3 MiB, kube's JSONPatchMaxCopyBytes) stops it at the first copy past it, 422."""
    assert probe.send("POST", CONFIGMAPS, {"metadata": {"name": "d2-doubling"}}).status == 201
    operations: list[dict[str, Any]] = [{"op": "add", "path": "/spec", "value": {"z": ["0123456789" * 5]}}]
    operations += [{"op": "copy", "from": "/spec/z", "path": "/spec/z/-"} for _ in range(22)]
    operations.append({"op": "test", "path": "/spec/q", "value": 1})
    body = json.dumps(operations)
    assert len(body) < 1500
    with probe.responsiveness():
        answer = probe.send(
            "PATCH", f"{CONFIGMAPS}/d2-doubling", body, content_type=JSON_PATCH, timeout=DEADLINE
        )
    assert answer.is_status(422), answer.body
    assert "accumulated size increase of copy" in answer.message and "3145728" in answer.message
    assert "spec" not in probe.send("GET", f"{CONFIGMAPS}/d2-doubling").body


def test_a_json_patch_of_more_than_10000_operations_is_413(probe: Probe) -> None:
    assert probe.send("POST", CONFIGMAPS, {"metadata": {"name": "d2-many"}}).status == 201
    operations = [{"op": "test", "path": "/metadata/name", "value": "d2-many"}] * 10_001
    answer = probe.send(
        "PATCH", f"{CONFIGMAPS}/d2-many", operations, content_type=JSON_PATCH, timeout=DEADLINE
    )
    assert answer.is_status(413), answer.body
    assert answer.message == "The allowed maximum operations in a JSON patch is 10000, got 10001"
    allowed = probe.send(
        "PATCH", f"{CONFIGMAPS}/d2-many", operations[:10_000], content_type=JSON_PATCH, timeout=DEADLINE
    )
    assert allowed.status == 200, allowed.body


def test_a_json_patch_of_many_moves_on_a_big_list_keeps_the_server_responsive(
    probe: Probe, widgets: str
) -> None:
    """10,000 moves on a list of 200,000 items: each shifts the whole list. Applied in a worker
    thread, the patch takes its time but /readyz keeps answering."""
    created = probe.send("POST", widgets, widget("d2-moves", spec={"list": list(range(200_000))}))
    assert created.status == 201, created.body
    operations = [{"op": "move", "from": "/spec/list/0", "path": "/spec/list/-"}] * 10_000
    with probe.responsiveness():
        answer = probe.send("PATCH", f"{widgets}/d2-moves", operations, content_type=JSON_PATCH, timeout=60)
    assert answer.status == 200, answer.body
    assert answer.body["spec"]["list"][:2] == [10_000, 10_001]


def test_a_json_patch_cannot_nest_an_object_past_the_depth_limit(probe: Probe) -> None:
    """Copies of a value into its own child deepen it a level each: past 128 levels, 422."""
    assert probe.send("POST", CONFIGMAPS, {"metadata": {"name": "d2-deep"}}).status == 201
    operations: list[dict[str, Any]] = [{"op": "add", "path": "/spec", "value": {"a": {"b": 1}}}]
    operations += [{"op": "copy", "from": "/spec/a", "path": "/spec/a/b"} for _ in range(200)]
    answer = probe.send(
        "PATCH", f"{CONFIGMAPS}/d2-deep", operations, content_type=JSON_PATCH, timeout=DEADLINE
    )
    assert answer.is_status(422), answer.body
    assert f"deeper than {MAX_DEPTH} levels" in answer.message


def test_a_merge_patch_cannot_grow_an_object_past_the_object_limit(probe: Probe, widgets: str) -> None:
    """Two 2 MiB merge patches, each under the body limit, would make a 4 MiB object: the second is
    413 and the object stays as it was."""
    two_mib = "x" * (2 * 1024 * 1024)
    assert probe.send("POST", widgets, widget("d2-grow")).status == 201
    first = probe.send("PATCH", f"{widgets}/d2-grow", {"spec": {"a": two_mib}}, content_type=MERGE_PATCH)
    assert first.status == 200, first.message
    second = probe.send("PATCH", f"{widgets}/d2-grow", {"spec": {"b": two_mib}}, content_type=MERGE_PATCH)
    assert second.is_status(413), second.body
    assert str(MAX_OBJECT_BYTES) in second.message
    assert "b" not in probe.send("GET", f"{widgets}/d2-grow").body["spec"]


def test_a_strategic_merge_patch_and_an_apply_cannot_grow_an_object_past_the_limit(
    probe: Probe, widgets: str
) -> None:
    two_mib = "x" * (2 * 1024 * 1024)
    assert probe.send("POST", DEPLOYMENTS, deployment("d2-smp", two_mib)).status == 201
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "containers": [{"name": "d", "image": "i", "env": [{"name": "F", "value": two_mib}]}]
                }
            }
        }
    }
    answer = probe.send("PATCH", f"{DEPLOYMENTS}/d2-smp", patch, content_type=STRATEGIC, timeout=DEADLINE)
    assert answer.is_status(413), answer.body
    assert probe.send("POST", widgets, widget("d2-apply", spec={"a": two_mib})).status == 201
    applied = probe.send(
        "PATCH",
        f"{widgets}/d2-apply?fieldManager=grower",
        widget("d2-apply", spec={"b": two_mib}),
        content_type=APPLY,
        timeout=DEADLINE,
    )
    assert applied.is_status(413), applied.body


# -- D3: YAML aliases ----------------------------------------------------------------------------


def alias_bomb(levels: int = 7, head: str = "metadata: {name: d3-bomb}") -> str:
    lines = [head, "a0: &a0 [" + ", ".join(['"xxxxxxxx"'] * 9) + "]"]
    for level in range(1, levels + 1):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_create_is_refused_and_stores_nothing(probe: Probe) -> None:
    """The D3 body: 7 levels of nested anchors in a few hundred bytes stored a 46.9 MB object."""
    body = alias_bomb()
    assert len(body) < 600
    with probe.responsiveness():
        answer = probe.send("POST", CONFIGMAPS, body, content_type=YAML, timeout=DEADLINE)
    assert answer.is_status(400), answer.body
    assert "excessive aliasing" in answer.message
    assert_absent(probe, f"{CONFIGMAPS}/d3-bomb")


@pytest.mark.parametrize(
    ("content_type", "head"),
    [
        (MERGE_PATCH, "data: {a: b}"),
        (STRATEGIC, "data: {a: b}"),
        (APPLY, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d3-patched}"),
    ],
)
def test_yaml_patches_and_applies_with_alias_bombs_are_refused(
    probe: Probe, content_type: str, head: str
) -> None:
    probe.send("POST", CONFIGMAPS, {"metadata": {"name": "d3-patched"}})
    path = f"{CONFIGMAPS}/d3-patched?fieldManager=bomber"
    with probe.responsiveness():
        answer = probe.send("PATCH", path, alias_bomb(head=head), content_type=content_type, timeout=DEADLINE)
    assert answer.is_status(400), answer.body
    assert "excessive aliasing" in answer.message
    assert "data" not in probe.send("GET", f"{CONFIGMAPS}/d3-patched").body


def test_yaml_aliases_expanding_past_the_object_limit_are_413(probe: Probe) -> None:
    """Few aliases (under go-yaml's count rule) of a big value: measured in bytes before expanding."""
    body = "s: &s " + "x" * 40_000 + "\nmetadata: {name: d3-wide}\nl: [" + ", ".join(["*s"] * 900) + "]\n"
    answer = probe.send("POST", CONFIGMAPS, body, content_type=YAML, timeout=DEADLINE)
    assert answer.is_status(413), answer.body
    assert str(MAX_OBJECT_BYTES) in answer.message
    assert_absent(probe, f"{CONFIGMAPS}/d3-wide")


def test_an_anchor_aliasing_itself_is_400(probe: Probe) -> None:
    answer = probe.send("POST", CONFIGMAPS, "metadata: {name: d3-self}\na: &a [1, *a]\n", content_type=YAML)
    assert answer.is_status(400), answer.body
    assert_absent(probe, f"{CONFIGMAPS}/d3-self")


def test_a_big_yaml_body_is_decoded_off_the_event_loop(probe: Probe) -> None:
    """~2.5 MB of YAML with 100,000 keys takes a second to read: in a worker thread, so /readyz keeps
    answering (the unknown field is then dropped, so the stored object is small)."""
    keys = "".join(f"  k{index}: v{index}\n" for index in range(100_000))
    body = f"metadata: {{name: d3-big}}\njunk:\n{keys}"
    with probe.responsiveness():
        answer = probe.send("POST", CONFIGMAPS, body, content_type=YAML, timeout=60)
    assert answer.status == 201, answer.body
    assert 'unknown field \\"junk\\"' in answer.headers.get("Warning", "")


# -- D5: what reaches a header -------------------------------------------------------------------


def test_an_unknown_field_named_with_a_control_character_gets_an_answer(probe: Probe) -> None:
    """D5: the warning for a field called "\\x01" broke the response after the object was created."""
    answer = probe.send(
        "POST", CONFIGMAPS, '{"metadata": {"name": "d5-warn"}, "\\u0001": 1}', timeout=DEADLINE
    )
    assert answer.status == 201, answer.body
    assert answer.headers["Warning"] == '299 - "unknown field \\"\\\\x01\\""'
    strict = probe.send(
        "POST", f"{CONFIGMAPS}?fieldValidation=Strict", '{"metadata": {"name": "d5-strict"}, "\\u0001": 1}'
    )
    assert strict.is_status(400), strict.body
    assert strict.message == 'strict decoding error: unknown field "\\x01"'
    assert_absent(probe, f"{CONFIGMAPS}/d5-strict")


def test_warnings_are_bounded_to_4_kib(probe: Probe) -> None:
    """200 unknown fields with 100-character names: kube's recorder cuts them at 4 KiB in all."""
    fields = {f"unknown-{index:03d}-" + "n" * 100: 1 for index in range(200)}
    answer = probe.send("POST", CONFIGMAPS, {"metadata": {"name": "d5-many"}, **fields}, timeout=DEADLINE)
    assert answer.status == 201, answer.body
    warnings = answer.header_values("Warning")
    written = sum(len(value.encode()) for value in warnings)
    assert 4096 <= written < 4096 + 300
    assert "unknown-000-" in warnings[0] and not any("unknown-199-" in value for value in warnings)


def test_header_bytes_that_are_not_utf8_do_not_break_the_response(probe: Probe) -> None:
    """A User-Agent (the default field manager) and an Audit-ID that are not UTF-8: a 500 with the
    object created before; now the write succeeds, and the echoed Audit-Id is readable."""
    headers = {"User-Agent": "\xff\xfe/1.0", "Audit-ID": "\xff\xfe"}
    answer = probe.send(
        "POST", CONFIGMAPS, {"metadata": {"name": "d5-bytes"}}, headers=headers, timeout=DEADLINE
    )
    assert answer.status == 201, answer.body
    managers = [entry["manager"] for entry in answer.body["metadata"].get("managedFields", [])]
    assert managers in ([], ["\ufffd\ufffd"])
    listed = probe.send("GET", CONFIGMAPS, headers={"Audit-ID": "\xff"}, timeout=DEADLINE)
    assert listed.status == 200


# -- D6: what a decoder could not hold -----------------------------------------------------------


def test_yaml_number_keys_become_strings_as_in_kube(probe: Probe) -> None:
    """D6: `data: {1: a}` was a 500 (TypeError); kube reads the key as "1"."""
    body = "metadata: {name: d6-keys}\ndata: {1: a, true: b}\n"
    answer = probe.send("POST", CONFIGMAPS, body, content_type=YAML, timeout=DEADLINE)
    assert answer.status == 201, answer.body
    assert answer.body["data"] == {"1": "a", "true": "b"}


def test_a_yaml_key_json_cannot_hold_is_400_with_its_place(probe: Probe) -> None:
    answer = probe.send("POST", CONFIGMAPS, "metadata: {name: d6-null}\ndata: {~: a}\n", content_type=YAML)
    assert answer.is_status(400), answer.body
    assert "line 2, column 8 is null" in answer.message
    assert_absent(probe, f"{CONFIGMAPS}/d6-null")


@pytest.mark.parametrize("query", ["?fieldValidation=Strict", ""])
def test_an_integer_past_64_bits_is_a_400_decode_error(probe: Probe, query: str) -> None:
    """D6: Strict with `replicas: 18446744073709551616` was a 500; as in kube (the number is read as a
    float, which an int32 field refuses), it is 400 with or without Strict."""
    body = json.dumps(deployment("d6-big")).replace(
        '"selector"', '"replicas": 18446744073709551616, "selector"'
    )
    answer = probe.send("POST", f"{DEPLOYMENTS}{query}", body, timeout=DEADLINE)
    assert answer.is_status(400), answer.body
    assert "spec.replicas" in answer.message
    assert_absent(probe, f"{DEPLOYMENTS}/d6-big")


DEEP = '{"n": ' * 970 + '"leaf"' + "}" * 970
"""970 levels of JSON, written out: the test's own json.dumps would exceed Python's recursion limit."""


@pytest.mark.parametrize(
    ("method", "suffix", "content_type", "body"),
    [
        (
            "POST",
            "?fieldValidation=Strict",
            "application/json",
            f'{{"metadata": {{"name": "d6-deep"}}, "x": {DEEP}}}',
        ),
        ("POST", "", "application/json", f'{{"metadata": {{"name": "d6-deep"}}, "x": {DEEP}}}'),
        ("PATCH", "/d6-target", MERGE_PATCH, f'{{"data": {{"x": "y"}}, "x": {DEEP}}}'),
        ("PATCH", "/d6-target", JSON_PATCH, f'[{{"op": "add", "path": "/x", "value": {DEEP}}}]'),
        (
            "PATCH",
            "/d6-target?fieldManager=m",
            APPLY,
            f'{{"apiVersion": "v1", "kind": "ConfigMap", "x": {DEEP}}}',
        ),
        ("PUT", "/d6-target", "application/json", f'{{"metadata": {{"name": "d6-target"}}, "x": {DEEP}}}'),
    ],
)
def test_nesting_past_the_limit_is_400_in_every_body(
    probe: Probe, method: str, suffix: str, content_type: str, body: str
) -> None:
    """D6: Strict with ~970 levels was a RecursionError (500); every body is depth-checked when read."""
    probe.send("POST", CONFIGMAPS, {"metadata": {"name": "d6-target"}})
    with probe.responsiveness():
        answer = probe.send(
            method, f"{CONFIGMAPS}{suffix}", body, content_type=content_type, timeout=DEADLINE
        )
    assert answer.is_status(400), answer.body
    assert "is nested too deeply: objects and lists may be nested at most" in answer.message
    assert "x" not in probe.send("GET", f"{CONFIGMAPS}/d6-target").body
    assert_absent(probe, f"{CONFIGMAPS}/d6-deep")


def test_yaml_nesting_past_the_limit_is_400(probe: Probe) -> None:
    body = "metadata: {name: d6-yaml-deep}\nx: " + "[" * 900 + "]" * 900 + "\n"
    answer = probe.send("POST", CONFIGMAPS, body, content_type=YAML, timeout=DEADLINE)
    assert answer.is_status(400), answer.body
    assert_absent(probe, f"{CONFIGMAPS}/d6-yaml-deep")


def test_an_object_at_the_depth_limit_goes_through_every_verb(probe: Probe, widgets: str) -> None:
    """The bound is safe: an object nested exactly 128 levels is created, read, listed, shown as a
    Table, patched three ways, applied, replaced and watched without a 500."""
    spec = nested(MAX_DEPTH - 1)  # the object itself is the first level
    body = widget("at-limit", spec=spec)
    assert probe.send("POST", widgets, body).status == 201
    path = f"{widgets}/at-limit"
    table = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
    for method, target, payload, content_type, headers in [
        ("GET", path, None, "application/json", None),
        ("GET", widgets, None, "application/json", None),
        ("GET", widgets, None, "application/json", table),
        ("PATCH", path, {"spec": spec}, MERGE_PATCH, None),
        ("PATCH", path, [{"op": "replace", "path": "/spec", "value": spec}], JSON_PATCH, None),
        ("PATCH", f"{path}?fieldManager=limit", body, APPLY, None),
        ("PUT", path, body, "application/json", None),
        ("GET", f"{widgets}?watch=1&timeoutSeconds=1", None, "application/json", None),
    ]:
        answer = probe.send(
            method, target, payload, content_type=content_type, headers=headers, timeout=DEADLINE
        )
        assert answer.status in (200, 201), (method, target, answer.body)
    assert probe.send("POST", widgets, widget("past-limit", spec={"one": spec})).is_status(400)


# -- query parameters and impersonation ------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "code", "message"),
    [
        ("limit=99999999999999999999", 400, 'parsing "99999999999999999999": value out of range'),
        ("limit=ten", 400, 'strconv.ParseInt: parsing "ten": invalid syntax'),
        ("timeoutSeconds=99999999999999999999&watch=1", 400, "value out of range"),
        ("resourceVersion=%C2%B2", 400, 'invalid resource version "²"'),
        ("resourceVersion=18446744073709551616", 400, "value out of range"),
        ("continue=garbage", 400, "invalid continue token: continue key is not valid"),
        ("labelSelector=a%20in%20(b", 400, ""),
        ("fieldSelector=%3D%3D%3D", 400, ""),
        (
            "resourceVersionMatch=Exact",
            422,
            "resourceVersionMatch is forbidden unless resourceVersion is provided",
        ),
        ("sendInitialEvents=true", 422, "sendInitialEvents is forbidden for list"),
        ("watch=1&resourceVersionMatch=NotOlderThan", 422, "forbidden for watch unless sendInitialEvents"),
    ],
)
def test_bad_list_parameters_are_refused_with_kube_s_code(
    probe: Probe, query: str, code: int, message: str
) -> None:
    answer = probe.send("GET", f"{CONFIGMAPS}?{query}", timeout=DEADLINE)
    assert answer.is_status(code), answer.body
    assert message in answer.message


def test_a_get_with_a_garbage_resource_version_is_400(probe: Probe) -> None:
    probe.send("POST", CONFIGMAPS, {"metadata": {"name": "rv-target"}})
    answer = probe.send("GET", f"{CONFIGMAPS}/rv-target?resourceVersion=%C2%B2", timeout=DEADLINE)
    assert answer.is_status(400), answer.body


def test_watch_with_any_value_but_0_or_false_is_a_watch_as_in_kube(probe: Probe) -> None:
    """kube reads a boolean query parameter as true unless it is 0 or false: watch=garbage watches."""
    answer = probe.send("GET", f"{CONFIGMAPS}?watch=garbage&timeoutSeconds=1", timeout=DEADLINE)
    assert answer.status == 200
    events = [json.loads(line) for line in answer.raw.splitlines() if line.strip()]
    assert events and all(event["type"] == "ADDED" for event in events)
    listed = probe.send("GET", f"{CONFIGMAPS}?watch=false", timeout=DEADLINE)
    assert listed.body["kind"] == "ConfigMapList"


@pytest.mark.parametrize(
    ("query", "body", "code", "message"),
    [
        ("gracePeriodSeconds=soon", None, 400, 'parsing "soon": invalid syntax'),
        ("propagationPolicy=Sideways", None, 422, 'Unsupported value: "Sideways"'),
        ("", {"preconditions": "x"}, 400, 'preconditions must be an object, got "x"'),
        ("", {"propagationPolicy": {"a": 1}}, 400, 'propagationPolicy must be a string, got {"a":1}'),
        ("", {"gracePeriodSeconds": 1.5}, 400, "gracePeriodSeconds must be an integer, got 1.5"),
    ],
)
def test_bad_delete_options_are_refused_and_delete_nothing(
    probe: Probe, query: str, body: Any, code: int, message: str
) -> None:
    probe.send("POST", CONFIGMAPS, {"metadata": {"name": "delete-target"}})
    answer = probe.send("DELETE", f"{CONFIGMAPS}/delete-target?{query}", body, timeout=DEADLINE)
    assert answer.is_status(code), answer.body
    assert message in answer.message
    assert probe.send("GET", f"{CONFIGMAPS}/delete-target").status == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Impersonate-User": "", "Impersonate-Group": "system:masters"},
        {"Impersonate-Group": "system:masters"},
        {"Impersonate-Uid": "1234"},
        {"Impersonate-Extra-Scopes": "view"},
    ],
)
def test_impersonating_groups_extra_or_a_uid_without_a_user_is_400(
    probe: Probe, headers: dict[str, str]
) -> None:
    """An empty Impersonate-User with a group was served as the caller; it is a malformed request."""
    answer = probe.send("POST", CONFIGMAPS, {"metadata": {"name": "impersonated"}}, headers=headers)
    assert answer.is_status(400), answer.body
    assert "without impersonating a user" in answer.message
    assert_absent(probe, f"{CONFIGMAPS}/impersonated")


# -- found by the fuzzer ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "content_type", "code", "message"),
    [
        ('{"spec": 1}', MERGE_PATCH, 400, "metadata and spec must be objects"),
        ('{"metadata": 1}', MERGE_PATCH, 400, "metadata and spec must be objects"),
        ('{"spec": 1, "apiVersion": "autoscaling/v1", "kind": "Scale"}', APPLY, 400, "metadata and spec"),
        ('{"spec": {"replicas": {"a": 1}}}', MERGE_PATCH, 400, 'got {"a":1}'),
        ('{"spec": {"replicas": 4294967296}}', MERGE_PATCH, 400, "must be a 32-bit integer"),
        ('{"spec": {"replicas": -1}}', MERGE_PATCH, 422, "must be greater than or equal to 0"),
    ],
)
def test_a_scale_that_is_not_a_scale_is_refused(
    probe: Probe, body: str, content_type: str, code: int, message: str
) -> None:
    """A patch of /scale leaving spec a number was a 500 (AttributeError); kube cannot decode it: 400."""
    probe.send("POST", DEPLOYMENTS, deployment("scaled"))
    answer = probe.send(
        "PATCH",
        f"{DEPLOYMENTS}/scaled/scale?fieldManager=m",
        body,
        content_type=content_type,
        timeout=DEADLINE,
    )
    assert answer.is_status(code), answer.body
    assert message in answer.message
    assert probe.send("GET", f"{DEPLOYMENTS}/scaled").body["spec"]["replicas"] == 1


def test_a_quantity_with_a_huge_exponent_is_refused_at_once(probe: Probe) -> None:
    """`cpu: 1e9999999` would be an exact number of ten million digits: 422 at once, server responsive."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "huge-exponent"},
        "spec": {
            "containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1e9999999"}}}]
        },
    }
    with probe.responsiveness():
        answer = probe.send("POST", "/api/v1/namespaces/default/pods", pod, timeout=10)
    assert answer.is_status(422), answer.body
    assert "out of range" in answer.message
