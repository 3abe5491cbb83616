"""What the schemathesis run (`bench/hostile.py`) and its review found, each as a regression test.

Table options read as kube reads them (an unknown `includeObject` is 400 on a list, a get and a
watch asking for a Table, and ignored otherwise); the bodies of the last handlers that decoded on
the event loop (the CSR approval's PATCH, the access and identity reviews) read as every other
write's: bounded, and in a worker thread when costly, so a 2.5 MB YAML body keeps /readyz answering
(and a review drops unknown fields as kube's decoding does, instead of sending them back); and
`/openapi/v3` declares what a DELETE answers (schemathesis' response schema check). The run's other
finding, a 75-120 ms stall at every timed full garbage collection, is `runtime/garbage`'s (unit test).
"""

from __future__ import annotations

import json

import pytest

from tests.integration.hostile.probe import Probe
from tests.unit.apiserver.certificates.requests import certificate_request, signing_request

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
MERGE_PATCH = "application/merge-patch+json"
YAML = "application/yaml"
DEADLINE = 20.0
GARBAGE_INCLUDE = (
    'Unable to convert to Table as requested: includeObject: Invalid value: "garbage": must be '
    "'Metadata', 'Object', 'None', or empty"
)


def big_yaml_mapping(keys: int = 100_000) -> str:
    """~2.5 MB of YAML: a mapping of `keys` keys, about a second of decoding."""
    return "".join(f"  k{index}: v{index}\n" for index in range(keys))


# -- includeObject ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [f"{CONFIGMAPS}?includeObject=garbage", f"{CONFIGMAPS}/table-target?includeObject=garbage"],
    ids=["list", "get"],
)
def test_an_unknown_include_object_of_a_table_read_is_400_in_kube_s_words(probe: Probe, path: str) -> None:
    probe.send("POST", CONFIGMAPS, {"metadata": {"name": "table-target"}})
    answer = probe.send("GET", path, headers={"Accept": TABLE}, timeout=DEADLINE)
    assert answer.is_status(400), answer.body
    assert answer.reason == "BadRequest"
    assert answer.message == GARBAGE_INCLUDE


def test_an_unknown_include_object_of_a_table_watch_is_400_before_the_stream(probe: Probe) -> None:
    answer = probe.send(
        "GET",
        f"{CONFIGMAPS}?watch=1&timeoutSeconds=1&includeObject=garbage",
        headers={"Accept": TABLE},
        timeout=DEADLINE,
    )
    assert answer.is_status(400), answer.body
    assert answer.message == GARBAGE_INCLUDE


def test_include_object_is_ignored_when_no_table_is_asked_for_as_in_kube(probe: Probe) -> None:
    listed = probe.send("GET", f"{CONFIGMAPS}?includeObject=garbage", timeout=DEADLINE)
    assert listed.status == 200 and listed.body["kind"] == "ConfigMapList"
    watched = probe.send("GET", f"{CONFIGMAPS}?watch=1&timeoutSeconds=1&includeObject=garbage")
    assert watched.status == 200
    assert all(json.loads(line)["type"] == "ADDED" for line in watched.raw.splitlines() if line.strip())


@pytest.mark.parametrize("include", ["None", "Object", "Metadata", ""])
def test_every_include_object_kube_knows_still_renders_a_table(probe: Probe, include: str) -> None:
    probe.send("POST", CONFIGMAPS, {"metadata": {"name": "table-target"}})
    answer = probe.send("GET", f"{CONFIGMAPS}?includeObject={include}", headers={"Accept": TABLE})
    assert answer.status == 200 and answer.body["kind"] == "Table", answer.body
    row = next(r for r in answer.body["rows"] if r["cells"][0] == "table-target")
    if include == "None":
        assert "object" not in row
    else:
        assert row["object"]["kind"] == ("ConfigMap" if include == "Object" else "PartialObjectMetadata")


# -- bodies of the approval subresource and of reviews -------------------------------------------------


def test_a_big_yaml_patch_of_a_csr_approval_is_decoded_off_the_event_loop(probe: Probe) -> None:
    """The approval PATCH decoded its body on the loop (~1 s for this one): /readyz waited as long."""
    created = probe.send("POST", CSRS, signing_request("approval-yaml", certificate_request("alice")))
    assert created.status == 201, created.body
    body = f"metadata:\n  labels: {{big: patch}}\njunk:\n{big_yaml_mapping()}"
    with probe.responsiveness():
        answer = probe.send(
            "PATCH", f"{CSRS}/approval-yaml/approval", body, content_type=MERGE_PATCH, timeout=60
        )
    assert answer.status == 200, answer.body
    # The approval subresource changes conditions only: neither the labels nor the junk were kept.
    stored = probe.send("GET", f"{CSRS}/approval-yaml").body
    assert "labels" not in stored["metadata"] and "junk" not in stored


def test_a_malformed_approval_patch_is_400_and_an_oversized_one_413(probe: Probe) -> None:
    probe.send("POST", CSRS, signing_request("approval-bad", certificate_request("bob")))
    malformed = probe.send("PATCH", f"{CSRS}/approval-bad/approval", "[", content_type=MERGE_PATCH)
    assert malformed.is_status(400), malformed.body
    oversized = "{" + ",".join(f'"k{i}": "{"v" * 1000}"' for i in range(3200)) + "}"
    answer = probe.send("PATCH", f"{CSRS}/approval-bad/approval", oversized, content_type=MERGE_PATCH)
    assert answer.is_status(413), answer.body


@pytest.mark.parametrize(
    ("path", "kind", "spec"),
    [
        (
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            "SelfSubjectAccessReview",
            {"resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}},
        ),
        ("/apis/authentication.k8s.io/v1/selfsubjectreviews", "SelfSubjectReview", None),
    ],
    ids=["access", "identity"],
)
def test_a_big_yaml_review_is_decoded_off_the_event_loop(
    probe: Probe, path: str, kind: str, spec: dict[str, object] | None
) -> None:
    """Reviews decoded their body on the loop (a 2.5 MB YAML review stalled /readyz for ~1 s) and sent
    unknown fields back; decoded as kube decodes every create, the unknown field is dropped with a warning."""
    group_version = path.split("/apis/", 1)[1].rsplit("/", 1)[0]
    head = f"apiVersion: {group_version}\nkind: {kind}\n"
    if spec is not None:
        head += f"spec: {json.dumps(spec)}\n"
    with probe.responsiveness():
        answer = probe.send("POST", path, f"{head}junk:\n{big_yaml_mapping()}", content_type=YAML, timeout=60)
    assert answer.status == 201, answer.body
    assert answer.body["kind"] == kind and answer.body["status"]
    assert "junk" not in answer.body
    assert 'unknown field \\"junk\\"' in answer.headers.get("Warning", "")


def test_a_review_with_an_unknown_field_is_refused_under_strict_validation(probe: Probe) -> None:
    answer = probe.send(
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews?fieldValidation=Strict",
        {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview", "junk": 1},
    )
    assert answer.is_status(400), answer.body
    assert answer.message == 'strict decoding error: unknown field "junk"'


# -- what /openapi/v3 declares -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("collection", "body", "kind"),
    [
        ("/api/v1/namespaces/default/pods", {"spec": {"containers": [{"name": "c", "image": "i"}]}}, "Pod"),
        (CONFIGMAPS, {"data": {"a": "b"}}, "Status"),
    ],
)
def test_a_delete_answers_with_what_the_document_declares(
    probe: Probe, collection: str, body: dict[str, object], kind: str
) -> None:
    """The documents declared a Status for every delete; a pod's delete answers with the Pod (as in
    kube, whose documents declare the Pod there): schemathesis' response_schema_conformance flagged it."""
    document = probe.send("GET", "/openapi/v3/api/v1").body
    responses = document["paths"][f"{collection.replace('/default/', '/{namespace}/')}/{{name}}"]["delete"]
    declared = responses["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert declared.rsplit(".", 1)[1] == kind
    created = probe.send("POST", collection, {"metadata": {"name": "deleted-answer"}, **body})
    assert created.status == 201, created.body
    answer = probe.send("DELETE", f"{collection}/deleted-answer?gracePeriodSeconds=0")
    assert answer.status == 200 and answer.body["kind"] == kind, answer.body
