"""Query parameters read as kube reads them: int64s, lenient booleans, resourceVersions, continue tokens."""

from __future__ import annotations

import base64
import json

import pytest
from multidict import MultiDict

from flotilla.apiserver import errors
from flotilla.apiserver.http.handlers.params import (
    decode_continue,
    encode_continue,
    field_manager,
    list_options,
    parse_int64,
    parse_resource_version,
    query_bool,
)


@pytest.mark.parametrize(
    ("raw", "value"), [("0", 0), ("+5", 5), ("-3", -3), ("9223372036854775807", 2**63 - 1)]
)
def test_int64_parameters_parse_as_go_parses_them(raw: str, value: int) -> None:
    assert parse_int64("limit", raw) == value


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("99999999999999999999", "value out of range"),
        ("-9223372036854775809", "value out of range"),
        ("abc", "invalid syntax"),
        (" 5", "invalid syntax"),
        ("1_000", "invalid syntax"),
        ("²", "invalid syntax"),
        ("١٢", "invalid syntax"),
    ],
)
def test_other_int64_parameters_are_400_with_go_s_words(raw: str, why: str) -> None:
    with pytest.raises(errors.BadRequest, match=f"query parameter limit: strconv.ParseInt: .*{why}"):
        parse_int64("limit", raw)


@pytest.mark.parametrize(
    ("query", "value"),
    [
        ("", None),
        ("watch=1", True),
        ("watch=true", True),
        ("watch=garbage", True),
        ("watch=", True),
        ("watch=0", False),
        ("watch=FALSE", False),
        ("watch=false&watch=true", False),
    ],
)
def test_booleans_are_true_unless_absent_0_or_false(query: str, value: bool | None) -> None:
    """kube's conversion of a boolean query parameter: any value but "0" and "false" is true."""
    parsed = MultiDict(pair.split("=", 1) for pair in query.split("&") if pair)
    assert query_bool(parsed, "watch") is value


@pytest.mark.parametrize(("raw", "value"), [("", 0), ("0", 0), ("42", 42), (str(2**64 - 1), 2**64 - 1)])
def test_resource_versions_are_uint64s(raw: str, value: int) -> None:
    assert parse_resource_version(raw) == value


@pytest.mark.parametrize("raw", ["abc", "-1", "+1", "²", "1.0", str(2**64)])
def test_other_resource_versions_are_400(raw: str) -> None:
    with pytest.raises(errors.BadRequest, match="invalid resource version"):
        parse_resource_version(raw)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"resourceVersionMatch": "Exact"}, "forbidden unless resourceVersion is provided"),
        ({"resourceVersionMatch": "Sometimes", "resourceVersion": "5"}, 'Unsupported value: "Sometimes"'),
        (
            {"resourceVersionMatch": "Exact", "resourceVersion": "0"},
            '"exact" is forbidden for resourceVersion "0"',
        ),
        ({"resourceVersionMatch": "NotOlderThan", "resourceVersion": "5", "continue": "x"}, "when continue"),
        ({"sendInitialEvents": "true"}, "sendInitialEvents is forbidden for list"),
        (
            {"watch": "1", "resourceVersionMatch": "NotOlderThan"},
            "forbidden for watch unless sendInitialEvents",
        ),
        ({"watch": "1", "sendInitialEvents": "true", "resourceVersionMatch": "Exact"}, "Unsupported value"),
    ],
)
def test_list_options_combinations_are_checked_as_kube_checks_them(
    query: dict[str, str], message: str
) -> None:
    with pytest.raises(errors.Invalid, match=message):
        list_options(MultiDict(query))


def test_list_options_that_do_not_parse_are_400() -> None:
    for query in ({"limit": "99999999999999999999"}, {"timeoutSeconds": "soon"}, {"resourceVersion": "x"}):
        with pytest.raises(errors.BadRequest):
            list_options(MultiDict(query))


def test_a_continue_token_round_trips() -> None:
    token = decode_continue(encode_continue(42, "/registry/configmaps/default/a"))
    assert (token.revision, token.start_after) == (42, "/registry/configmaps/default/a")


def _token(payload: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("token", "why"),
    [
        ("%%%", "not the base64-encoded JSON"),
        ("é", "not the base64-encoded JSON"),
        (_token([1]), "not the base64-encoded JSON"),
        (_token({"v": "meta.k8s.io/v2", "rv": 1, "start": "a"}), "does not recognize this encoded version"),
        (_token({"v": "meta.k8s.io/v1", "rv": 0, "start": "a"}), "incorrect encoded start resourceVersion"),
        (
            _token({"v": "meta.k8s.io/v1", "rv": 2**70, "start": "a"}),
            "incorrect encoded start resourceVersion",
        ),
        (
            _token({"v": "meta.k8s.io/v1", "rv": True, "start": "a"}),
            "incorrect encoded start resourceVersion",
        ),
        (_token({"v": "meta.k8s.io/v1", "rv": 3, "start": ""}), "encoded start key empty"),
    ],
)
def test_a_bad_continue_token_is_400(token: str, why: str) -> None:
    with pytest.raises(
        errors.BadRequest, match=f"invalid continue token: continue key is not valid: .*{why}"
    ):
        decode_continue(token)


def test_a_field_manager_must_be_printable() -> None:
    with pytest.raises(errors.Invalid, match="invalid character U\\+0001 \\(at position 1\\)"):
        field_manager(MultiDict({"fieldManager": "a\x01"}), "kubectl/v1")


def test_a_field_manager_from_an_undecodable_user_agent_reads_as_replacement_characters() -> None:
    assert field_manager(MultiDict(), "\udcff\udcfe/1.0") == "\ufffd\ufffd"
    assert field_manager(MultiDict(), "kubectl/v1.32") == "kubectl"
