"""Merging an applied configuration onto the live object, by the schema's list and map types."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from flotilla.apiserver.registry.apply import InvalidObjectError
from flotilla.apiserver.registry.apply.atoms import object_schema
from flotilla.apiserver.registry.apply.merge import merge_value
from tests.unit.apiserver.registry.apply.objects import (
    containers,
    deployment_schema,
    partial_deployment,
    pod_spec,
    web_deployment,
)


def merged(live: dict[str, Any], applied: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = merge_value(live, applied, object_schema(deployment_schema()), ())
    return result


def template(spec: dict[str, Any]) -> dict[str, Any]:
    return partial_deployment({"template": {"spec": spec}})


def test_containers_merge_by_name_keeping_what_the_configuration_leaves_out() -> None:
    """The named container gets the new image and keeps its env; other containers stay."""
    live = web_deployment()
    containers(live)[0]["env"] = [{"name": "MODE", "value": "prod"}]
    containers(live).append({"name": "sidecar", "image": "envoy"})
    result = merged(live, template({"containers": [{"name": "nginx", "image": "nginx:1.26"}]}))
    assert [c["name"] for c in containers(result)] == ["nginx", "sidecar"]
    assert containers(result)[0]["image"] == "nginx:1.26"
    assert containers(result)[0]["env"] == [{"name": "MODE", "value": "prod"}]


def test_ports_merge_by_container_port_and_defaulted_protocol() -> None:
    """A port without a protocol is the TCP port; the UDP port on the same number is another item."""
    live = web_deployment()
    containers(live)[0]["ports"] = [
        {"containerPort": 80, "protocol": "TCP"},
        {"containerPort": 80, "protocol": "UDP"},
    ]
    result = merged(
        live, template({"containers": [{"name": "nginx", "ports": [{"containerPort": 80, "name": "http"}]}]})
    )
    assert containers(result)[0]["ports"] == [
        {"containerPort": 80, "protocol": "TCP", "name": "http"},
        {"containerPort": 80, "protocol": "UDP"},
    ]


def test_set_lists_merge_by_value_in_the_configurations_order() -> None:
    """Finalizers are unioned; items both name follow the configuration, live-only items keep their place."""
    live = partial_deployment(metadata={"finalizers": ["a", "b"]})
    result = merged(live, partial_deployment(metadata={"finalizers": ["c", "a"]}))
    assert result["metadata"]["finalizers"] == ["c", "a", "b"]


def test_atomic_lists_and_structs_are_replaced_whole() -> None:
    """Tolerations, args and the label selector are leaves: the configured value replaces the live one."""
    live = web_deployment()
    pod_spec(live)["tolerations"] = [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}]
    containers(live)[0]["args"] = ["one", "two"]
    live["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "front"}}
    applied = partial_deployment(
        {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "spec": {
                    "tolerations": [{"key": "c", "operator": "Exists"}],
                    "containers": [{"name": "nginx", "args": ["three"]}],
                }
            },
        }
    )
    result = merged(live, applied)
    assert pod_spec(result)["tolerations"] == [{"key": "c", "operator": "Exists"}]
    assert containers(result)[0]["args"] == ["three"]
    assert result["spec"]["selector"] == {"matchLabels": {"app": "web"}}


def test_granular_maps_merge_key_by_key() -> None:
    """Labels the configuration does not mention stay."""
    result = merged(web_deployment(), partial_deployment(metadata={"labels": {"tier": "front"}}))
    assert result["metadata"]["labels"] == {"app": "web", "tier": "front"}


def test_reordering_a_keyed_list_reorders_the_live_one() -> None:
    """Applying containers in a new order gives them that order."""
    live = web_deployment()
    containers(live).append({"name": "b", "image": "x"})
    result = merged(live, template({"containers": [{"name": "b"}, {"name": "nginx"}]}))
    assert [c["name"] for c in containers(result)] == ["b", "nginx"]


def test_merging_leaves_its_inputs_alone() -> None:
    """Neither the live object nor the configuration is changed by merging them."""
    live, applied = web_deployment(), template({"containers": [{"name": "nginx", "image": "nginx:2"}]})
    live_before, applied_before = copy.deepcopy(live), copy.deepcopy(applied)
    merged(live, applied)
    assert live == live_before
    assert applied == applied_before


def test_parts_the_configuration_leaves_alone_are_shared_not_copied() -> None:
    """The live selector, and a live container the configuration does not name, are the live values."""
    live = web_deployment()
    containers(live).append({"name": "sidecar", "image": "envoy", "ports": [{"containerPort": 9901}]})
    result = merged(live, template({"containers": [{"name": "nginx", "image": "nginx:2"}]}))
    assert result["spec"]["selector"] is live["spec"]["selector"]
    assert containers(result)[1] is containers(live)[1]
    assert containers(result)[0] is not containers(live)[0]


def test_a_live_part_with_an_unnamed_item_is_walked_and_refused() -> None:
    """A live list the configuration leaves alone still needs names for its items, as kube requires."""
    live = web_deployment()
    containers(live).append({"image": "busybox"})
    with pytest.raises(InvalidObjectError, match=re.escape(".spec.template.spec.containers: element 1:")):
        merged(live, partial_deployment({"replicas": 2}))


def test_an_unnamed_item_inside_a_live_item_is_left_for_the_comparison() -> None:
    """Merging does not name what is inside live-only items (comparing does), so it still succeeds."""
    live = web_deployment()
    containers(live).append({"name": "sidecar", "ports": [{"name": "no-port-number"}]})
    result = merged(live, partial_deployment({"replicas": 2}))
    assert containers(result)[1] == {"name": "sidecar", "ports": [{"name": "no-port-number"}]}


def test_duplicate_keys_in_a_configuration_are_rejected() -> None:
    """Two containers named alike cannot both be applied."""
    applied = template({"containers": [{"name": "a"}, {"name": "a"}]})
    with pytest.raises(InvalidObjectError, match=re.escape('duplicate entries for key {"name":"a"}')):
        merged(web_deployment(), applied)


def test_live_duplicates_survive_unless_the_configuration_names_them() -> None:
    """kube tolerates duplicate env names in stored objects; applying one of them replaces both."""
    live = web_deployment()
    containers(live)[0]["env"] = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}, {"name": "B"}]
    kept = merged(live, template({"containers": [{"name": "nginx", "env": [{"name": "B", "value": "b"}]}]}))
    assert containers(kept)[0]["env"] == [
        {"name": "A", "value": "1"},
        {"name": "A", "value": "2"},
        {"name": "B", "value": "b"},
    ]
    replaced = merged(
        live, template({"containers": [{"name": "nginx", "env": [{"name": "A", "value": "3"}]}]})
    )
    assert containers(replaced)[0]["env"] == [{"name": "A", "value": "3"}, {"name": "B"}]
