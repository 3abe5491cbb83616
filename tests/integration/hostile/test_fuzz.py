"""A property-based fuzzer against one real API server: whatever a client sends, the hub answers.

Hypothesis generates request bodies (JSON, YAML with anchors and aliases, protobuf-looking bytes,
garbage), patches of the four types, label and field selectors, query parameters and header values,
for a ConfigMap, a Deployment and a custom resource. Every answer must come within its deadline, be
under 500 (a 504 "Too large resource version" is kube's answer to a read in the future, not a
failure), and be a Kubernetes Status when it is an error, with a message free of Python tracebacks
and reprs; after each request /readyz must still answer.

Deterministic (`derandomize`) and bounded (150 examples per property, about 30 s), so `make test`
runs it as it runs any other test; `FUZZ_EXAMPLES=N` runs more, and `FUZZ_RANDOM=1` other examples
than CI's, to explore locally.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any
from urllib.parse import quote, urlencode

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.integration.hostile.probe import Answer, Probe
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually

NAMESPACE = "default"
DEADLINE = 15.0
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0"))
RANDOM = os.environ.get("FUZZ_RANDOM", "") == "1"

FUZZ = settings(
    max_examples=EXAMPLES or 150,
    derandomize=not RANDOM,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "fuzzwidgets.fuzz.example.com"},
    "spec": {
        "group": "fuzz.example.com",
        "scope": "Namespaced",
        "names": {"plural": "fuzzwidgets", "singular": "fuzzwidget", "kind": "FuzzWidget"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {
                    "status": {},
                    "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"},
                },
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "replicas": {"type": "integer", "format": "int32", "minimum": 0},
                                    "name": {"type": "string", "maxLength": 20, "pattern": "^[a-z]+$"},
                                    "tags": {
                                        "type": "array",
                                        "items": {"type": "string"},
                                        "x-kubernetes-list-type": "set",
                                    },
                                    "ratio": {"type": "number"},
                                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                                },
                            },
                            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                        },
                    }
                },
            }
        ],
    },
}

RESOURCES = {
    "configmaps": (f"/api/v1/namespaces/{NAMESPACE}/configmaps", "v1", "ConfigMap"),
    "deployments": (f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments", "apps/v1", "Deployment"),
    "fuzzwidgets": (
        f"/apis/fuzz.example.com/v1/namespaces/{NAMESPACE}/fuzzwidgets",
        "fuzz.example.com/v1",
        "FuzzWidget",
    ),
}
SEEDS = {
    "configmaps": {"metadata": {"name": "seed", "labels": {"app": "fuzz"}}, "data": {"a": "b"}},
    "deployments": {
        "metadata": {"name": "seed", "labels": {"app": "fuzz"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "fuzz"}},
            "template": {
                "metadata": {"labels": {"app": "fuzz"}},
                "spec": {"containers": [{"name": "c", "image": "i", "env": [{"name": "A", "value": "1"}]}]},
            },
        },
    },
    "fuzzwidgets": {"metadata": {"name": "seed"}, "spec": {"replicas": 1, "name": "seed", "tags": ["a"]}},
}
NAMES = ["seed", "fuzz-a", "fuzz-b"]

# Python in an error message: a traceback, a repr of a dict, list or object, an exception's class.
PYTHON_LEAK = re.compile(r"Traceback|File \"|\{'|\['|<class |<[a-zA-Z_.]+ object at |Error\(")


@pytest.fixture(scope="module")
def fuzz_probe(server: ServerProcess) -> Probe:
    """The module's server with a ConfigMap, a Deployment and a custom resource to aim at."""
    probe = Probe(server, timeout=DEADLINE)
    created = probe.send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", WIDGET_CRD)
    assert created.status == 201, created.body
    eventually(lambda: probe.send("GET", RESOURCES["fuzzwidgets"][0]).status == 200, what="the CRD served")
    for plural, seed in SEEDS.items():
        path, api_version, kind = RESOURCES[plural]
        answer = probe.send("POST", path, {"apiVersion": api_version, "kind": kind, **seed})
        assert answer.status == 201, answer.body
    return probe


def check(probe: Probe, answer: Answer, request: str) -> None:
    """The properties every answer must have."""
    future_read = answer.status == 504 and "Too large resource version" in answer.message
    assert answer.status < 500 or future_read, f"{request} -> {answer.status}: {answer.raw[:500]!r}"
    if answer.status >= 400:
        assert answer.is_status(answer.status), f"{request} -> not a Status: {answer.raw[:500]!r}"
        assert answer.message, f"{request} -> a Status without a message"
        assert not PYTHON_LEAK.search(answer.message), f"{request} -> Python in the message: {answer.message}"
    assert probe.send("GET", "/readyz", timeout=DEADLINE).status == 200, f"/readyz after {request}"


def send(probe: Probe, method: str, path: str, body: bytes | None, **kwargs: Any) -> None:
    request = f"{method} {path} {kwargs.get('content_type', '')} {(body or b'')[:200]!r}"
    check(probe, probe.send(method, path, body, timeout=DEADLINE, **kwargs), request)


# -- strategies -------------------------------------------------------------------------------------

odd_text = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        ["", "\x01", "\x00", "\x7f", "\u0085", "é", "a.b", "~1", "/", "$patch", "metadata", "spec", "-", "0"]
    ),
)
huge_ints = st.sampled_from(
    [2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**30, -(10**40)]
)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), huge_ints, st.floats(allow_nan=True), odd_text
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(odd_text, children, max_size=4),
    max_leaves=16,
)
names = st.one_of(st.sampled_from(NAMES), st.text(max_size=20))
deep_text = st.integers(100, 1100).map(lambda levels: '{"n":' * levels + "1" + "}" * levels)


def dump_json(value: Any) -> bytes:
    # ensure_ascii escapes lone surrogates and control characters, as a client library would send them
    return json.dumps(value, allow_nan=True).encode()


@st.composite
def objects(draw: st.DrawFn, plural: str) -> dict[str, Any]:
    """An object of the kind, more or less well formed."""
    _, api_version, kind = RESOURCES[plural]
    obj: dict[str, Any] = {"metadata": {"name": draw(names)}}
    if draw(st.booleans()):
        obj["apiVersion"] = draw(st.sampled_from([api_version, "v9", ""]))
        obj["kind"] = draw(st.sampled_from([kind, "Pod", ""]))
    if draw(st.booleans()):
        obj["metadata"]["labels"] = draw(
            st.dictionaries(odd_text, st.one_of(odd_text, json_values), max_size=3)
        )
    seed = SEEDS[plural]
    for field in ("data", "spec", "status", *(draw(st.lists(odd_text, max_size=2)))):
        if draw(st.booleans()):
            obj[field] = draw(st.one_of(st.just(seed.get(field)), json_values))
    if plural == "deployments" and draw(st.booleans()):
        obj["spec"] = {**SEEDS["deployments"]["spec"], "replicas": draw(st.one_of(huge_ints, scalars))}
    return obj


@st.composite
def yaml_texts(draw: st.DrawFn, plural: str) -> bytes:
    """YAML: a dump of an object, or one with anchors and aliases (a few, or an expanding bomb)."""
    name = draw(st.sampled_from(NAMES))
    shape = draw(st.sampled_from(["dump", "aliases", "bomb", "keys", "self"]))
    if shape == "dump":
        return yaml.safe_dump(draw(objects(plural)), allow_unicode=draw(st.booleans())).encode()
    if shape == "aliases":
        value = json.dumps(draw(json_values))
        count = draw(st.integers(1, 60))
        return f"metadata: {{name: {name}}}\nbase: &b {value}\nmany: [{', '.join(['*b'] * count)}]\n".encode()
    if shape == "bomb":
        levels, fan_out = draw(st.integers(1, 8)), draw(st.integers(2, 10))
        lines = [f"metadata: {{name: {name}}}", "a0: &a0 [x, y]"]
        lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fan_out)}]" for i in range(1, levels + 1)]
        return ("\n".join(lines) + "\n").encode()
    if shape == "keys":
        key = draw(
            st.sampled_from(
                ["1", "1.5", "true", "~", "[1]", "{a: 1}", "2001-12-14", ".nan", "0x1f", "!!binary aGk="]
            )
        )
        return f"metadata: {{name: {name}}}\ndata: {{{key}: v}}\n".encode()
    return f"metadata: {{name: {name}}}\na: &a [1, *a]\n".encode()


@st.composite
def bodies(draw: st.DrawFn, plural: str) -> tuple[bytes, str]:
    """A request body and the Content-Type it is sent with."""
    form = draw(
        st.sampled_from(["json", "json", "json", "yaml", "yaml", "deep", "garbage", "protobuf", "other"])
    )
    if form == "json":
        return dump_json(draw(objects(plural))), "application/json"
    if form == "yaml":
        return draw(yaml_texts(plural)), "application/yaml"
    if form == "deep":
        return f'{{"metadata": {{"name": "fuzz-a"}}, "x": {draw(deep_text)}}}'.encode(), draw(
            st.sampled_from(["application/json", "application/yaml"])
        )
    if form == "protobuf":
        return b"k8s\x00" + draw(st.binary(max_size=64)), "application/vnd.kubernetes.protobuf"
    if form == "garbage":
        return draw(st.binary(max_size=64)), draw(st.sampled_from(["application/json", "application/yaml"]))
    return dump_json(draw(objects(plural))), draw(
        st.sampled_from(["text/plain", "", "application/json; charset=x", "*/*"])
    )


pointers = st.one_of(
    st.sampled_from(
        [
            "",
            "/data",
            "/data/a",
            "/metadata/labels",
            "/metadata/labels/x",
            "/spec",
            "/spec/replicas",
            "/spec/tags/-",
            "/spec/tags/0",
            "/spec/template/spec/containers/0/env/-",
            "/~0x",
            "/a~1b",
            "/x/-1",
        ]
    ),
    odd_text,
)
json_patch_ops = st.fixed_dictionaries(
    {
        "op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "frobnicate"]),
        "path": pointers,
    },
    optional={"value": json_values, "from": pointers},
)
directives = st.dictionaries(
    st.sampled_from(
        ["$patch", "$retainKeys", "$setElementOrder/containers", "$deleteFromPrimitiveList/finalizers"]
    ),
    st.one_of(st.sampled_from(["delete", "replace", "merge", "garbage"]), json_values),
    max_size=2,
)


@st.composite
def patches(draw: st.DrawFn, plural: str) -> tuple[bytes, str, str]:
    """A PATCH body, its Content-Type and the query it goes with."""
    kind = draw(st.sampled_from(["json", "merge", "strategic", "apply", "yaml-merge"]))
    if kind == "json":
        operations = draw(st.one_of(st.lists(json_patch_ops, max_size=6), json_values))
        return dump_json(operations), "application/json-patch+json", ""
    if kind in ("merge", "strategic"):
        patch = draw(st.one_of(st.dictionaries(odd_text, json_values, max_size=4), json_values))
        if isinstance(patch, dict) and draw(st.booleans()):
            patch["spec"] = {
                **draw(directives),
                **(patch.get("spec") if isinstance(patch.get("spec"), dict) else {}),
            }
        content_type = (
            "application/merge-patch+json" if kind == "merge" else "application/strategic-merge-patch+json"
        )
        return dump_json(patch), content_type, ""
    if kind == "yaml-merge":
        return draw(yaml_texts(plural)), "application/merge-patch+json", ""
    obj = draw(objects(plural))
    _, api_version, kind_name = RESOURCES[plural]
    metadata = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
    obj.update(apiVersion=api_version, kind=kind_name, metadata={**metadata, "name": "seed"})
    query = draw(
        st.sampled_from(["fieldManager=fuzz", "fieldManager=fuzz&force=true", "", "fieldManager=%01"])
    )
    body = draw(st.sampled_from([dump_json(obj), yaml.safe_dump(obj).encode()]))
    return body, "application/apply-patch+yaml", query


label_selectors = st.one_of(
    st.sampled_from(
        ["app=fuzz", "app!=x", "app in (fuzz,x)", "!app", "app", "app notin ()", "a=b,c!=d", "x>1", "a in (b"]
    ),
    st.text(alphabet="abc=!,() inotex-./<>", max_size=24),
)
field_selectors = st.one_of(
    st.sampled_from(
        [
            "metadata.name=seed",
            "metadata.name!=x",
            "metadata.namespace=default",
            "status.phase=Running",
            "spec.replicas=1",
            "metadata.name==a,metadata.name=b",
            "===",
        ]
    ),
    st.text(alphabet="metadat.nspce=!,", max_size=24),
)
int_texts = st.one_of(
    st.integers(-5, 600).map(str),
    huge_ints.map(str),
    st.sampled_from(["", "abc", "1.5", " 1", "+3", "²", "0x10", "1_0"]),
)
# resourceVersions the server has reached, or that do not parse: a valid one in the future makes the
# server wait 3 s before its 504, which other tests check; here it would only slow the run down.
resource_versions = st.one_of(
    st.integers(0, 40).map(str),
    st.sampled_from(["", "abc", "-1", "+1", "²", " 1", "1.5", "18446744073709551616"]),
)
bool_texts = st.sampled_from(["true", "false", "1", "0", "", "garbage", "FALSE", "True"])


@st.composite
def list_queries(draw: st.DrawFn) -> list[tuple[str, str]]:
    """Query parameters of a list or watch; a watch always ends within a second."""
    optional = {
        "limit": int_texts,
        "continue": st.one_of(
            odd_text, st.sampled_from(["eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0"])
        ),
        "resourceVersion": resource_versions,
        "resourceVersionMatch": st.sampled_from(["Exact", "NotOlderThan", "", "exact", "Garbage"]),
        "labelSelector": label_selectors,
        "fieldSelector": field_selectors,
        "allowWatchBookmarks": bool_texts,
        "sendInitialEvents": bool_texts,
        "includeObject": st.sampled_from(["None", "Object", "Metadata", "garbage"]),
        "timeout": st.sampled_from(["1s", "garbage", "-1s", "99999h", ""]),
    }
    pairs = [(key, draw(strategy)) for key, strategy in optional.items() if draw(st.integers(0, 3)) == 0]
    if draw(st.integers(0, 5)) == 0:
        pairs += [("watch", draw(bool_texts)), ("timeoutSeconds", "1")]
    elif draw(st.booleans()):
        pairs.append(("timeoutSeconds", draw(int_texts)))
    return pairs


accepts = st.sampled_from(
    [
        "application/json",
        "application/json;as=Table;v=v1;g=meta.k8s.io",
        "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
        "application/yaml",
        "application/vnd.kubernetes.protobuf",
        "text/html",
        "application/json;as=Garbage;v=v9;g=meta.k8s.io",
    ]
)
plurals = st.sampled_from(sorted(RESOURCES))


# -- properties ---------------------------------------------------------------------------------------


@FUZZ
@given(
    plural=plurals,
    body=st.data(),
    method=st.sampled_from(["POST", "PUT"]),
    validation=st.sampled_from(["", "Strict", "Warn", "Ignore", "garbage"]),
)
def test_any_body_is_answered_with_an_object_or_a_status(
    fuzz_probe: Probe, plural: str, body: st.DataObject, method: str, validation: str
) -> None:
    """A create or replace with any body, in any format, under any fieldValidation, is answered."""
    path = RESOURCES[plural][0]
    content, content_type = body.draw(bodies(plural))
    if method == "PUT":
        path += "/" + quote(body.draw(names), safe="") if body.draw(st.booleans()) else "/seed"
    query = urlencode({"fieldValidation": validation}) if validation else ""
    send(fuzz_probe, method, f"{path}?{query}", content, content_type=content_type)


@FUZZ
@given(plural=plurals, data=st.data(), subresource=st.sampled_from(["", "", "", "/status", "/scale"]))
def test_any_patch_is_answered_with_an_object_or_a_status(
    fuzz_probe: Probe, plural: str, data: st.DataObject, subresource: str
) -> None:
    """A patch of any of the four types, of an object or its status or scale, is answered."""
    content, content_type, query = data.draw(patches(plural))
    name = data.draw(st.sampled_from(["seed", "seed", "missing"]))
    send(
        fuzz_probe,
        "PATCH",
        f"{RESOURCES[plural][0]}/{name}{subresource}?{query}",
        content,
        content_type=content_type,
    )


@FUZZ
@given(plural=plurals, query=list_queries(), accept=accepts, cluster_wide=st.booleans())
def test_any_list_or_watch_query_is_answered(
    fuzz_probe: Probe, plural: str, query: list[tuple[str, str]], accept: str, cluster_wide: bool
) -> None:
    """A list or watch with any parameters, selectors and Accept header is answered."""
    path = RESOURCES[plural][0]
    if cluster_wide:
        path = path.replace(f"/namespaces/{NAMESPACE}", "")
    send(fuzz_probe, "GET", f"{path}?{urlencode(query)}", None, headers={"Accept": accept})


@FUZZ
@given(
    plural=plurals,
    name=names,
    resource_version=resource_versions,
    delete=st.booleans(),
    options=st.one_of(
        st.none(),
        st.dictionaries(
            st.sampled_from(
                [
                    "propagationPolicy",
                    "gracePeriodSeconds",
                    "preconditions",
                    "dryRun",
                    "orphanDependents",
                    "kind",
                ]
            ),
            json_values,
            max_size=3,
        ),
    ),
    query=st.lists(
        st.tuples(
            st.sampled_from(["gracePeriodSeconds", "propagationPolicy", "dryRun", "orphanDependents"]),
            st.one_of(int_texts, odd_text),
        ),
        max_size=2,
    ),
)
def test_any_get_or_delete_is_answered(
    fuzz_probe: Probe,
    plural: str,
    name: str,
    resource_version: str,
    delete: bool,
    options: dict[str, Any] | None,
    query: list[tuple[str, str]],
) -> None:
    """A read at any resourceVersion and a (dry-run) delete with any options are answered."""
    target = f"{RESOURCES[plural][0]}/{quote(name, safe='') or 'seed'}"
    if not delete:
        send(fuzz_probe, "GET", f"{target}?{urlencode({'resourceVersion': resource_version})}", None)
        return
    # Deletes are dry runs, so the seeds stay for the other properties.
    body = dump_json({**(options or {}), "dryRun": ["All"]}) if options is not None else None
    send(fuzz_probe, "DELETE", f"{target}?{urlencode([*query, ('dryRun', 'All')])}", body)


header_texts = st.one_of(
    st.text(
        alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"), max_size=20
    ),
    st.sampled_from(
        ["", "system:masters", "system:serviceaccount:default:default", "\xff\xfe", "a,b", "x" * 300]
    ),
)


@FUZZ
@given(
    headers=st.dictionaries(
        st.sampled_from(
            [
                "Impersonate-User",
                "Impersonate-Group",
                "Impersonate-Uid",
                "Impersonate-Extra-Scopes",
                "Audit-ID",
                "User-Agent",
                "Accept",
                "Content-Type",
                "Accept-Encoding",
            ]
        ),
        header_texts,
        max_size=3,
    ),
    method=st.sampled_from(["GET", "POST"]),
)
def test_any_header_values_are_answered(fuzz_probe: Probe, headers: dict[str, str], method: str) -> None:
    """Any header values (latin-1 on the wire) reaching users, audit, managers and warnings are answered."""
    path = RESOURCES["configmaps"][0]
    body = dump_json({"metadata": {"generateName": "fuzz-h-"}, "\x01": 1}) if method == "POST" else None
    send(fuzz_probe, method, f"{path}?dryRun=All" if method == "POST" else path, body, headers=headers)
