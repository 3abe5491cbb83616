"""Field selectors: kube's parsing and escapes, accepted labels, and the values kinds expose."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.api.builtin import EVENT_FIELDS, POD_FIELDS
from flotilla.api.fieldselectors import (
    EVERYTHING,
    FieldOperator,
    FieldRequirement,
    check_field_selector,
    check_metadata_field_selector,
    escape_field_value,
    field_values,
    parse_field_selector,
    supported_field_labels,
)
from flotilla.api.selectors import SelectorError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", ""),
        (",", ""),
        ("a=b", "a=b"),
        ("a==b", "a=b"),
        ("a!=b", "a!=b"),
        ("a=", "a="),
        ("b=1,a=2", "a=2,b=1"),
        ("a=1,,b=2,", "a=1,b=2"),
        ("a=b\\,c", "a=b\\,c"),
        ("a=x\\=y\\\\z", "a=x\\=y\\\\z"),
        ("a=!b", "a=!b"),
        ("metadata.name= spaced ", "metadata.name= spaced "),
    ],
)
def test_valid_strings_parse_to_their_canonical_form(text: str, canonical: str) -> None:
    """Accepted field selectors print back as kube prints them, `==` normalized to `=`."""
    assert str(parse_field_selector(text)) == canonical


def test_escaped_characters_are_part_of_the_value() -> None:
    """Backslash escapes in values unescape to the literal comma, equals sign and backslash."""
    selector = parse_field_selector("spec.nodeName=a\\,b\\=c\\\\d,status.phase!=Running")
    assert selector.requirements == (
        FieldRequirement("spec.nodeName", FieldOperator.EQUALS, "a,b=c\\d"),
        FieldRequirement("status.phase", FieldOperator.NOT_EQUALS, "Running"),
    )
    assert selector.fields == frozenset({"spec.nodeName", "status.phase"})


def test_field_names_are_taken_verbatim_up_to_the_first_operator() -> None:
    """Spaces stay in field names and values, as kube neither trims nor unescapes the field name."""
    (requirement,) = parse_field_selector("metadata.name = x").requirements
    assert (requirement.field, requirement.value) == ("metadata.name ", " x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a", "invalid selector: 'a'; can't understand 'a'"),
        ("a=1,b", "invalid selector: 'a=1,b'; can't understand 'b'"),
        ("a=b=c", "invalid field selector: unescaped character in value: 61"),
        ("a=\\x", "invalid field selector: invalid escape sequence: \\x"),
        ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
    ],
)
def test_invalid_strings_are_refused_with_kube_messages(text: str, message: str) -> None:
    """Malformed field selectors raise SelectorError worded as kube-apiserver words it."""
    with pytest.raises(SelectorError) as caught:
        parse_field_selector(text)
    assert str(caught.value) == message


def test_matching_reads_missing_fields_as_empty() -> None:
    """A field the object lacks reads as "", so `f=` matches it and `f!=x` does too."""
    values = {"metadata.name": "web", "spec.nodeName": ""}
    assert parse_field_selector("metadata.name=web,spec.nodeName=").matches(values)
    assert parse_field_selector("status.phase=,status.phase!=Running").matches(values)
    assert not parse_field_selector("metadata.name!=web").matches(values)
    assert not parse_field_selector("metadata.name=web,status.phase=Running").matches(values)
    assert EVERYTHING.empty
    assert EVERYTHING.matches({})


def test_exact_match_is_reported_only_for_equality() -> None:
    """requires_exact_match gives the value an `=` term pins, and nothing for `!=` or absent fields."""
    selector = parse_field_selector("metadata.name=web,metadata.namespace!=kube-system")
    assert selector.requires_exact_match("metadata.name") == "web"
    assert selector.requires_exact_match("metadata.namespace") is None
    assert selector.requires_exact_match("spec.nodeName") is None


def test_unsupported_field_labels_are_refused() -> None:
    """Labels outside the kind's set raise `field label not supported: <f>`; supported ones pass."""
    allowed = supported_field_labels(POD_FIELDS, namespaced=True)
    check_field_selector(parse_field_selector("metadata.namespace=a,spec.nodeName=n1"), allowed)
    with pytest.raises(SelectorError, match=r"^field label not supported: spec.host$"):
        check_field_selector(parse_field_selector("spec.host=n1"), allowed)
    node_labels = supported_field_labels(("spec.unschedulable",), namespaced=False)
    assert node_labels == frozenset({"metadata.name", "spec.unschedulable"})
    with pytest.raises(SelectorError, match=r"^field label not supported: metadata.namespace$"):
        check_field_selector(parse_field_selector("metadata.namespace=x"), node_labels)


def test_kinds_without_their_own_labels_refuse_in_the_default_wording() -> None:
    """The default conversion accepts name and namespace and names both when refusing anything else."""
    check_metadata_field_selector(parse_field_selector("metadata.name=a,metadata.namespace=b"))
    with pytest.raises(SelectorError) as caught:
        check_metadata_field_selector(parse_field_selector("data.x=1"))
    assert (
        str(caught.value)
        == '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"'
    )


@given(st.text(max_size=20))
def test_escaped_values_parse_back_to_the_literal(value: str) -> None:
    """Any value, escaped, survives parsing unchanged, and the selector prints back the same."""
    text = f"spec.nodeName={escape_field_value(value)}"
    selector = parse_field_selector(text)
    assert selector.requirements == (FieldRequirement("spec.nodeName", FieldOperator.EQUALS, value),)
    assert str(selector) == text


@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[a-z]{1,3}(\.[a-z]{1,3})?", fullmatch=True), st.booleans(), st.text(max_size=6)
        )
    )
)
def test_the_string_form_parses_back_to_an_equal_selector(terms: list[tuple[str, bool, str]]) -> None:
    """A selector built from canonical terms prints a string that parses back to the same selector."""
    text = ",".join(
        f"{name}{'=' if equal else '!='}{escape_field_value(value)}" for name, equal, value in terms
    )
    selector = parse_field_selector(text)
    assert parse_field_selector(str(selector)) == selector


@given(st.text(alphabet="ab=!,\\ ", max_size=12))
def test_parsing_arbitrary_text_only_fails_with_selector_errors(text: str) -> None:
    """Any text either parses or raises SelectorError, never another exception."""
    with contextlib.suppress(SelectorError):
        parse_field_selector(text)


# --- field values -------------------------------------------------------------------------------


def test_pod_values_follow_the_pod_strategy() -> None:
    """Pods expose their fields as strings, with hostNetwork false when unset and podIP from podIPs."""
    pod = {
        "metadata": {"name": "web-1", "namespace": "default"},
        "spec": {"nodeName": "n1", "restartPolicy": "Always", "serviceAccountName": "sa"},
        "status": {
            "phase": "Running",
            "podIP": "10.0.0.9",
            "podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}],
        },
    }
    assert field_values(pod, POD_FIELDS, namespaced=True) == {
        "metadata.name": "web-1",
        "metadata.namespace": "default",
        "spec.nodeName": "n1",
        "spec.restartPolicy": "Always",
        "spec.schedulerName": "",
        "spec.serviceAccountName": "sa",
        "spec.hostNetwork": "false",
        "status.phase": "Running",
        "status.podIP": "10.0.0.1",
        "status.podIPs": "",
        "status.nominatedNodeName": "",
    }


def test_pod_ip_falls_back_to_the_singular_field_and_host_network_reads_true() -> None:
    """Without podIPs the singular podIP is used; a set hostNetwork reads "true"."""
    pod = {"metadata": {"name": "p"}, "spec": {"hostNetwork": True}, "status": {"podIP": "10.1.1.1"}}
    values = field_values(pod, ("spec.hostNetwork", "status.podIP"), namespaced=True)
    assert values["spec.hostNetwork"] == "true"
    assert values["status.podIP"] == "10.1.1.1"
    assert values["metadata.namespace"] == ""


def test_event_source_falls_back_to_the_reporting_controller() -> None:
    """An event's `source` is source.component, or reportingComponent when that is empty."""
    event = {
        "metadata": {"name": "e", "namespace": "ns"},
        "involvedObject": {"kind": "Pod", "name": "web-1", "uid": "u1"},
        "reason": "Scheduled",
        "type": "Normal",
        "reportingComponent": "default-scheduler",
        "source": {},
    }
    values = field_values(event, EVENT_FIELDS, namespaced=True)
    assert values["source"] == "default-scheduler"
    assert values["involvedObject.name"] == "web-1"
    assert values["involvedObject.namespace"] == ""
    event["source"] = {"component": "kubelet"}
    assert field_values(event, ("source",), namespaced=True)["source"] == "kubelet"


def test_counts_and_flags_have_kube_defaults_for_builtin_kinds() -> None:
    """Job successes, replica counts and node schedulability read "0"/"false" when unset."""
    job = {"metadata": {"name": "j"}, "status": {"succeeded": 2}}
    assert field_values(job, ("status.successful",), namespaced=True)["status.successful"] == "2"
    assert (
        field_values({"metadata": {"name": "j"}}, ("status.successful",), namespaced=True)[
            "status.successful"
        ]
        == "0"
    )
    assert (
        field_values({"metadata": {"name": "rs"}}, ("status.replicas",), namespaced=True)["status.replicas"]
        == "0"
    )
    node = field_values(
        {"metadata": {"name": "n1"}, "spec": {"unschedulable": True}}, ("spec.unschedulable",), False
    )
    assert node == {"metadata.name": "n1", "spec.unschedulable": "true"}


def test_custom_resource_fields_read_their_path_and_missing_is_empty() -> None:
    """Custom resources print strings, booleans and integers as Go does, and missing values as ""."""
    widget = {"metadata": {"name": "w", "namespace": "ns"}, "spec": {"color": "red", "size": 3, "on": False}}
    labels = ("spec.color", "spec.size", "spec.on", "status.replicas", "spec.color.shade")
    assert field_values(widget, labels, namespaced=False, custom_resource=True) == {
        "metadata.name": "w",
        "spec.color": "red",
        "spec.size": "3",
        "spec.on": "false",
        "status.replicas": "",
        "spec.color.shade": "",
    }


def test_values_and_selectors_work_together() -> None:
    """kubectl describe's event query selects exactly the events about the described object."""
    selector = parse_field_selector(
        "involvedObject.name=web-1,involvedObject.namespace=default,involvedObject.kind=Pod"
    )
    about = {
        "metadata": {"name": "e1"},
        "involvedObject": {"name": "web-1", "namespace": "default", "kind": "Pod"},
    }
    other = {
        "metadata": {"name": "e2"},
        "involvedObject": {"name": "web-2", "namespace": "default", "kind": "Pod"},
    }
    assert selector.matches(field_values(about, EVENT_FIELDS, namespaced=True))
    assert not selector.matches(field_values(other, EVENT_FIELDS, namespaced=True))
