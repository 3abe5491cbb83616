"""State preservation paths read a status as client-go's JSONPath does, with missing keys as errors."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.controllers.applicationfailover.jsonpath import JSONPathError, parse_template

STATUS: dict[str, Any] = {
    "replicas": 3,
    "readyReplicas": 0,
    "ratio": 0.5,
    "paused": False,
    "jobStatus": {"jobID": "a1b2c3", "state": "FAILED"},
    "labels": {"app.kubernetes.io/name": "flink"},
    "conditions": [
        {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"},
        {"type": "Progressing", "status": "True", "observed": 2},
    ],
    "savepoints": ["s1", "s2", "s3"],
}


def render(template: str, document: Any = STATUS) -> str:
    return parse_template(template).render(document)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{ .jobStatus.jobID }", "a1b2c3"),
        ("{.replicas}", "3"),
        ("{$.jobStatus.state}", "FAILED"),
        ("job-{.jobStatus.jobID}-{.replicas}", "job-a1b2c3-3"),
        ("{.paused}", "false"),
        ("{.ratio}", "0.5"),
        (r"{.labels.app\.kubernetes\.io/name}", "flink"),
        ("{.labels['app.kubernetes.io/name']}", "flink"),
        ("{.savepoints[0]}", "s1"),
        ("{.savepoints[-1]}", "s3"),
        ("{.savepoints[0:2]}", "s1 s2"),
        ("{.savepoints[*]}", "s1 s2 s3"),
        ("{.jobStatus.*}", "a1b2c3 FAILED"),
        ('{.conditions[?(@.type=="Available")].reason}', "MinimumReplicasUnavailable"),
        ("{.conditions[?(@.type!='Available')].status}", "True"),
        ("{.conditions[?(@.status>'G')].type}", "Progressing"),
        ("{.conditions[?(@.observed)].type}", "Progressing"),
        ('{"literal"}', "literal"),
        ("no action at all", "no action at all"),
    ],
)
def test_paths_read_what_client_go_reads(template: str, expected: str) -> None:
    assert render(template) == expected


def test_numbers_compare_as_numbers() -> None:
    pods = {
        "pods": [{"name": "a", "restarts": 0}, {"name": "b", "restarts": 4}, {"name": "c", "restarts": 2.5}]
    }
    assert render("{.pods[?(@.restarts>=2)].name}", pods) == "b c"
    assert render("{.pods[?(@.restarts==0)].name}", pods) == "a"


def test_objects_and_lists_print_as_json() -> None:
    assert render("{.jobStatus}") == '{"jobID":"a1b2c3","state":"FAILED"}'
    assert render("{.savepoints}") == '["s1","s2","s3"]'
    assert render("{.}", {"b": 1, "a": [True]}) == '{"a":[true],"b":1}'


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (2.0, "2"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (123456.0, "123456"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5, "-2.5"),
        (0.0, "0"),
        (None, "<nil>"),
        (True, "true"),
        (7, "7"),
    ],
)
def test_scalars_print_as_go_prints_them(value: Any, printed: str) -> None:
    """JSON numbers are Go float64s in Karmada: fmt.Print switches to exponents from 1e6."""
    assert render("{.v}", {"v": value}) == printed


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{.jobStatus.savepointPath}", "savepointPath is not found"),
        ("{.missing}", "missing is not found"),
        ("{.savepoints[5]}", "array index out of bounds"),
        ("{.replicas[0]}", "is not array or slice"),
        ("{.conditions[?(@.reason=='x')].type}", "reason is not found"),
    ],
)
def test_a_path_that_finds_nothing_is_an_error(template: str, message: str) -> None:
    """Karmada parses with AllowMissingKeys(false): an empty label would be state silently lost."""
    with pytest.raises(JSONPathError, match=message):
        render(template)


@pytest.mark.parametrize(
    "template",
    ["{..jobID}", "{.savepoints[0,1]}", "{range .savepoints[*]}{@}{end}", "{.jobStatus", "{.a[?(@.b==c)]}"],
)
def test_what_is_not_supported_is_refused_when_parsed(template: str) -> None:
    with pytest.raises(JSONPathError):
        parse_template(template)
