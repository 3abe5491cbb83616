"""CRD patterns and CEL rules against a real server: refused when bad, enforced when good, never a freeze."""

# ruff: noqa: E501 - kube messages and CEL rules are quoted whole: unbroken they read as kube prints them

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.integration.hostile.probe import Answer, Probe
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

GROUP = "hostile.flotilla.io"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
SCHEMA_PATH = "spec.versions[0].schema.openAPIV3Schema"


def _crd(plural: str, spec_schema: dict[str, Any]) -> dict[str, Any]:
    kind = plural[:-1].capitalize()
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": plural[:-1], "kind": kind, "listKind": f"{kind}List"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec_schema}}},
                }
            ],
        },
    }


def _install(probe: Probe, plural: str, spec_schema: dict[str, Any]) -> str:
    """Create the CRD, wait until its resource is served; the collection path of its objects."""
    answer = probe.send("POST", CRDS, _crd(plural, spec_schema))
    assert answer.status == 201, answer.body
    path = f"/apis/{GROUP}/v1/namespaces/default/{plural}"
    eventually(lambda: probe.send("GET", path).status == 200, what=f"{plural} served")
    return path


def _object(plural: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": plural[:-1].capitalize(),
        "metadata": {"name": name},
        "spec": spec,
    }


def _causes(answer: Answer) -> list[str]:
    details = answer.body.get("details") or {} if isinstance(answer.body, dict) else {}
    return [f"{c.get('field')}: {c.get('message')}" for c in details.get("causes") or []]


def test_a_catastrophic_pattern_answers_at_once_and_the_server_stays_responsive(probe: Probe) -> None:
    """`^(a+)+$` against 40 a's and a b froze the old server for minutes; now a quick 422."""
    path = _install(
        probe, "greedies", {"type": "object", "properties": {"x": {"type": "string", "pattern": "^(a+)+$"}}}
    )
    with probe.responsiveness():
        answer = probe.send("POST", path, _object("greedies", "g", {"x": "a" * 40 + "b"}), timeout=10)
    assert answer.is_status(422)
    assert _causes(answer) == [f"spec.x: Invalid value: \"{'a' * 40}b\": should match '^(a+)+$'"]
    assert probe.send("POST", path, _object("greedies", "ok", {"x": "aaaa"})).status == 201


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("((", "error parsing regexp: missing closing ): `((`"),
        ("^(?=a)a$", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
    ],
)
def test_a_pattern_go_refuses_is_refused_at_crd_creation(probe: Probe, pattern: str, problem: str) -> None:
    plural = "badpatterns" if pattern == "((" else "lookaheads"
    schema = {"type": "object", "properties": {"x": {"type": "string", "pattern": pattern}}}
    answer = probe.send("POST", CRDS, _crd(plural, schema))
    assert answer.is_status(422), answer.body
    assert _causes(answer) == [
        f"{SCHEMA_PATH}.properties[spec].properties[x].pattern: Invalid value: {json.dumps(pattern)}: "
        f"must be a valid regular expression, but isn't: {problem}"
    ]


RULES_SCHEMA = {
    "type": "object",
    "properties": {
        "x": {"type": "string", "maxLength": 20, "x-kubernetes-validations": [{"rule": "self == 'y'"}]},
        "count": {
            "type": "integer",
            "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "count may not decrease"}],
        },
        "min": {"type": "integer"},
        "max": {"type": "integer"},
    },
    "x-kubernetes-validations": [
        {"rule": "!has(self.min) || !has(self.max) || self.min <= self.max",
         "messageExpression": "'min (' + string(self.min) + ') must not exceed max (' + string(self.max) + ')'"},
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def rules_path(server: Any) -> str:
    return _install(Probe(server), "ruleds", RULES_SCHEMA)


def test_an_object_violating_a_rule_is_refused_with_kubes_message(probe: Probe, rules_path: str) -> None:
    answer = probe.send("POST", rules_path, _object("ruleds", "bad", {"x": "z"}))
    assert answer.is_status(422), answer.body
    assert _causes(answer) == ["spec.x: Invalid value: \"string\": failed rule: self == 'y'"]
    assert answer.message == (
        'Ruled.hostile.flotilla.io "bad" is invalid: spec.x: Invalid value: "string": failed rule: self == \'y\''
    )


def test_a_message_expression_words_the_failure(probe: Probe, rules_path: str) -> None:
    answer = probe.send("POST", rules_path, _object("ruleds", "range", {"x": "y", "min": 5, "max": 3}))
    assert answer.is_status(422), answer.body
    assert _causes(answer) == ['spec: Invalid value: "object": min (5) must not exceed max (3)']


def test_a_transition_rule_holds_on_update_only(probe: Probe, rules_path: str) -> None:
    created = probe.send("POST", rules_path, _object("ruleds", "counter", {"x": "y", "count": 5}))
    assert created.status == 201, created.body  # no old value: the transition rule does not run
    item = f"{rules_path}/counter"
    lowered = probe.send("PATCH", item, {"spec": {"count": 4}}, content_type="application/merge-patch+json")
    assert lowered.is_status(422), lowered.body
    assert _causes(lowered) == ['spec.count: Invalid value: "integer": count may not decrease']
    raised = probe.send("PATCH", item, {"spec": {"count": 6}}, content_type="application/merge-patch+json")
    assert raised.status == 200, raised.body


def test_several_failures_are_reported_together(probe: Probe, rules_path: str) -> None:
    answer = probe.send("POST", rules_path, _object("ruleds", "twice", {"x": "z", "min": 2, "max": 1}))
    assert answer.is_status(422)
    assert sorted(c.split(":")[0] for c in _causes(answer)) == ["spec", "spec.x"]


def test_a_rule_that_does_not_compile_is_refused_at_crd_creation(probe: Probe) -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "self.x == "}],
    }
    answer = probe.send("POST", CRDS, _crd("uncompileds", schema))
    assert answer.is_status(422), answer.body
    (cause,) = _causes(answer)
    assert cause.startswith(
        f"{SCHEMA_PATH}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "
        'apiextensions.ValidationRule{Rule:"self.x == ", Message:""'
    )
    assert ": compilation failed: ERROR: <input>:1:" in cause


def test_an_unbounded_quadratic_rule_is_refused_for_its_estimated_cost(probe: Probe) -> None:
    schema = {
        "type": "object",
        "properties": {"l": {"type": "array", "items": {"type": "string"}}},
        "x-kubernetes-validations": [{"rule": "self.l.all(a, self.l.all(b, a == b))"}],
    }
    answer = probe.send("POST", CRDS, _crd("quadratics", schema))
    assert answer.is_status(422), answer.body
    assert (
        f"{SCHEMA_PATH}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds "
        "budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and "
        "maxLength where arrays, maps, and strings are declared)"
    ) in _causes(answer)


def test_a_cpu_bomb_rule_is_stopped_by_the_cost_limit_off_the_event_loop(probe: Probe) -> None:
    """Within its estimate, but 1000 x 1000 steps at run time: stopped at the per-call limit, the
    server answering /readyz all along."""
    schema = {
        "type": "object",
        "properties": {"l": {"type": "array", "maxItems": 1000, "items": {"type": "integer"}}},
        "x-kubernetes-validations": [{"rule": "self.l.all(a, self.l.all(b, a + b >= 0))"}],
    }
    path = _install(probe, "bombs", schema)
    with probe.responsiveness():
        answer = probe.send("POST", path, _object("bombs", "boom", {"l": list(range(1000))}), timeout=30)
    assert answer.is_status(422), answer.body
    assert _causes(answer) == [
        "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation "
        "rules will be run due to call cost exceeds limit for rule: self.l.all(a, self.l.all(b, a + b >= 0))"
    ]
    assert probe.send("POST", path, _object("bombs", "small", {"l": list(range(10))})).status == 201


@pytest.mark.kubectl
def test_kubectl_shows_a_failed_rule_as_kube_does(probe: Probe, rules_path: str, kubectl: Kubectl) -> None:
    manifest = json.dumps(_object("ruleds", "viakubectl", {"x": "nope"}))
    result = kubectl.run("create", "-f", "-", input=manifest, check=False)
    assert result.returncode != 0
    assert result.stderr.strip() == (
        'The Ruled "viakubectl" is invalid: spec.x: Invalid value: "string": failed rule: self == \'y\''
    )


def test_a_worst_case_rule_over_a_3_mib_object_keeps_the_server_responsive(probe: Probe) -> None:
    """A 3 MiB string walked by string functions inside a comprehension: the rule runs off the event
    loop until the per-call limit stops it. (A 3 MiB body of 300,000 small items stalls /readyz in
    decoding alone, rules or not: that is the decoder's to fix, so the object here is one string.)"""
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "maxLength": 3_000_000}},
        "x-kubernetes-validations": [
            {"rule": "[1, 2, 3, 4, 5, 6, 7, 8].all(i, self.s.lowerAscii().upperAscii().size() > i)"}
        ],
    }
    path = _install(probe, "largestrings", schema)
    body = _object("largestrings", "large", {"s": "ab" * 1_500_000})
    with probe.responsiveness():
        answer = probe.send("POST", path, body, timeout=60)
    assert answer.is_status(422), answer.body
    assert "no further validation rules will be run due to call cost exceeds limit" in _causes(answer)[0]


def test_a_crd_with_a_thousand_rules_is_checked_and_served_off_the_event_loop(probe: Probe) -> None:
    """Parsing, compiling and costing 1,000 rules takes seconds of Python: none of it on the loop."""
    fields = {
        f"f{i}": {
            "type": "string",
            "maxLength": 64,
            "x-kubernetes-validations": [
                {"rule": f"self.size() < 60 && self.startsWith('a') || self.endsWith('z{i}')", "message": "m"}
            ],
        }
        for i in range(1000)
    }
    with probe.responsiveness():
        path = _install(probe, "manyrules", {"type": "object", "properties": fields})
        created = probe.send("POST", path, _object("manyrules", "one", {f"f{i}": "abc" for i in range(1000)}))
        assert created.status == 201, created.body
        refused = probe.send("POST", path, _object("manyrules", "two", {"f7": "bcd"}))
        assert refused.is_status(422)
        assert "spec.f7" in refused.message
