"""Content negotiation: which representation and which view an Accept header gets, or 406."""

from __future__ import annotations

import pytest

from flotilla.apiserver import errors
from flotilla.apiserver.encoding.bodies import JSON, YAML
from flotilla.apiserver.http.content import Negotiated, View, negotiate, parse_accept

KUBECTL_GET = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
    "application/json"
)
"""What `kubectl get` sends: a Table, in either meta version, else the objects."""


@pytest.mark.parametrize("accept", [None, ""])
def test_no_accept_header_gets_json_objects(accept: str | None) -> None:
    """Without an Accept header the answer is the objects as JSON, kube-apiserver's default."""
    assert negotiate(accept) == Negotiated(View.OBJECT, JSON)


@pytest.mark.parametrize("accept", ["application/json", "application/*", "*/*", "Application/JSON"])
def test_json_and_wildcards_get_json_objects(accept: str) -> None:
    """application/json, application/* and */* (in any case) are answered with JSON."""
    assert negotiate(accept) == Negotiated(View.OBJECT, JSON)


def test_yaml_is_answered_as_yaml() -> None:
    """application/yaml gets YAML, with the plain media type as its content type."""
    negotiated = negotiate("application/yaml")
    assert negotiated == Negotiated(View.OBJECT, YAML)
    assert negotiated.content_type == YAML


def test_kubectl_get_gets_a_v1_table() -> None:
    """The first acceptable entry wins: kubectl's Accept asks for a meta.k8s.io/v1 Table first."""
    negotiated = negotiate(KUBECTL_GET)
    assert negotiated == Negotiated(View.TABLE, JSON, "v1")
    assert negotiated.content_type == "application/json;as=Table;v=v1;g=meta.k8s.io"


def test_a_v1beta1_table_is_answered_in_v1beta1() -> None:
    """The meta version asked for is the one the Table is served in."""
    assert negotiate("application/json;as=Table;v=v1beta1;g=meta.k8s.io") == Negotiated(
        View.TABLE, JSON, "v1beta1"
    )


@pytest.mark.parametrize("view", [View.METADATA, View.METADATA_LIST])
def test_metadata_informers_get_partial_object_metadata(view: View) -> None:
    """as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1 is the metadata-only view."""
    negotiated = negotiate(f"application/json;as={view.value};g=meta.k8s.io;v=v1")
    assert negotiated == Negotiated(view, JSON, "v1")
    assert negotiated.content_type == f"application/json;as={view.value};v=v1;g=meta.k8s.io"


def test_parameters_are_read_unquoted_and_in_any_order() -> None:
    """Quoted values and parameters in another order mean the same view."""
    assert negotiate('application/json; g="meta.k8s.io"; as="Table"; v="v1"').view is View.TABLE


@pytest.mark.parametrize(
    "accept",
    [
        "application/json;as=Table;v=v1",  # no group
        "application/json;as=Table;g=example.com;v=v1",  # another group
        "application/json;as=Table;g=meta.k8s.io;v=v2",  # a version meta.k8s.io does not have
        "application/json;as=Widget;g=meta.k8s.io;v=v1",  # a view that does not exist
    ],
)
def test_a_view_that_cannot_be_served_falls_through_to_the_next_entry(accept: str) -> None:
    """An unservable view is skipped: with a plain entry after it, that one is used; alone, 406."""
    assert negotiate(f"{accept},application/json") == Negotiated(View.OBJECT, JSON)
    with pytest.raises(errors.NotAcceptable):
        negotiate(accept)


def test_where_views_are_not_allowed_a_table_request_falls_back_or_is_406() -> None:
    """Endpoints without views (allow_views=False) serve the next plain entry, or refuse a Table alone."""
    assert negotiate(KUBECTL_GET, allow_views=False) == Negotiated(View.OBJECT, JSON)
    with pytest.raises(errors.NotAcceptable):
        negotiate("application/json;as=Table;v=v1;g=meta.k8s.io", allow_views=False)


def test_protobuf_alone_is_answered_with_json() -> None:
    """Every Go client also reads JSON, so a client asking only for protobuf gets JSON, not 406."""
    assert negotiate("application/vnd.kubernetes.protobuf") == Negotiated(View.OBJECT, JSON)
    assert negotiate("application/vnd.kubernetes.protobuf,application/yaml") == Negotiated(View.OBJECT, YAML)


def test_an_unacceptable_type_is_406_naming_what_is_served() -> None:
    """text/html (or anything else unservable) is 406 NotAcceptable listing JSON and YAML."""
    with pytest.raises(errors.NotAcceptable) as refused:
        negotiate("text/html,application/xml")
    assert refused.value.message == f"only the following media types are accepted: {JSON}, {YAML}"


def test_parse_accept_splits_ranges_and_lowercases_types_and_parameter_names() -> None:
    """Each comma-separated range becomes a type and its parameters; empty ranges are dropped."""
    ranges = parse_accept("Application/JSON;AS=Table;v=v1, ,text/plain")
    assert [(r.type, r.params) for r in ranges] == [
        ("application/json", {"as": "Table", "v": "v1"}),
        ("text/plain", {}),
    ]
