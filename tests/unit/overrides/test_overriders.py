"""One rule's overriders applied to realistic manifests, in Karmada's order."""

from __future__ import annotations

import json
from typing import Any

import pytest

from flotilla.overrides import OverrideError, apply_overriders
from tests.unit.interpreter.samples import web_deployment

DIGEST = "sha256:" + "b" * 64


def _images(manifest: dict[str, Any]) -> list[str]:
    return [container["image"] for container in manifest["spec"]["template"]["spec"]["containers"]]


@pytest.mark.parametrize(
    ("overrider", "images"),
    [
        (
            {"component": "Registry", "operator": "replace", "value": "mirror.cn.example"},
            ["mirror.cn.example/shop/web:1.4.2", f"mirror.cn.example/envoyproxy/envoy@sha256:{'a' * 64}"],
        ),
        (
            {"component": "Registry", "operator": "remove"},
            ["shop/web:1.4.2", f"envoyproxy/envoy@sha256:{'a' * 64}"],
        ),
        (
            {"component": "Registry", "operator": "add", "value": ":5000"},
            ["registry.example.com:5000/shop/web:1.4.2", f":5000/envoyproxy/envoy@sha256:{'a' * 64}"],
        ),
        (
            {"component": "Repository", "operator": "add", "value": "-fips"},
            ["registry.example.com/shop/web-fips:1.4.2", f"envoyproxy/envoy-fips@sha256:{'a' * 64}"],
        ),
        (
            {"component": "Tag", "operator": "replace", "value": "2.0"},
            ["registry.example.com/shop/web:2.0", "envoyproxy/envoy:2.0"],
        ),
        (
            {"component": "Tag", "operator": "replace", "value": DIGEST},
            [f"registry.example.com/shop/web@{DIGEST}", f"envoyproxy/envoy@{DIGEST}"],
        ),
        (
            {"component": "Tag", "operator": "remove"},
            ["registry.example.com/shop/web", "envoyproxy/envoy"],
        ),
    ],
)
def test_image_overrider_without_predicate_edits_every_container_image(
    overrider: dict[str, Any], images: list[str]
) -> None:
    """Each component operator rewrites every app container of the Deployment, digests included."""
    overridden = apply_overriders(web_deployment(), {"imageOverrider": [overrider]})
    assert _images(overridden) == images
    init_images = [
        container["image"] for container in overridden["spec"]["template"]["spec"]["initContainers"]
    ]
    assert init_images == ["registry.example.com/shop/migrate:2.1", "fluent/fluent-bit:3.0"]


def test_image_overrider_with_a_predicate_edits_only_that_image() -> None:
    """A predicate path targets one image, even an init container's."""
    rule = {
        "imageOverrider": [
            {
                "predicate": {"path": "/spec/template/spec/initContainers/1/image"},
                "component": "Tag",
                "operator": "add",
                "value": "-debug",
            }
        ]
    }
    overridden = apply_overriders(web_deployment(), rule)
    assert (
        overridden["spec"]["template"]["spec"]["initContainers"][1]["image"] == "fluent/fluent-bit:3.0-debug"
    )
    assert _images(overridden) == _images(web_deployment())


def test_image_overrider_leaves_kinds_without_containers_alone() -> None:
    """Without a predicate, a ConfigMap or a CronJob has no images to edit."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c"},
        "data": {"image": "nginx"},
    }
    rule = {"imageOverrider": [{"component": "Registry", "operator": "replace", "value": "r.example"}]}
    assert apply_overriders(config_map, rule) == config_map


@pytest.mark.parametrize(
    ("overrider", "message"),
    [
        (
            {"predicate": {"path": "/spec/nothing/here"}, "component": "Tag", "operator": "remove"},
            "predicate path",
        ),
        ({"predicate": {"path": "spec/x"}, "component": "Tag", "operator": "remove"}, "start with /"),
        ({"predicate": {"path": "/spec/replicas"}, "component": "Tag", "operator": "remove"}, "not a string"),
        ({"component": "Digest", "operator": "replace", "value": "x"}, "unsupported image component"),
    ],
)
def test_image_overrider_errors_name_the_overrider(overrider: dict[str, Any], message: str) -> None:
    """A failing image overrider raises an error naming its position and cause."""
    with pytest.raises(OverrideError, match=rf"imageOverrider\[0\]: .*{message}"):
        apply_overriders(web_deployment(), {"imageOverrider": [overrider]})


def test_an_unparsable_image_fails_the_override() -> None:
    """An image that is not a reference cannot be edited."""
    deployment = web_deployment()
    deployment["spec"]["template"]["spec"]["containers"][0]["image"] = "Registry.Example.com/Web"
    rule = {"imageOverrider": [{"component": "Tag", "operator": "replace", "value": "1"}]}
    with pytest.raises(OverrideError, match=r"failed to parse image value\(Registry.Example.com/Web\)"):
        apply_overriders(deployment, rule)


def test_command_and_args_overriders_edit_the_named_container() -> None:
    """Add appends, remove deletes matching items, only in the container named."""
    rule = {
        "commandOverrider": [
            {"containerName": "web", "operator": "add", "value": ["--config", "/etc/web/web.yaml"]}
        ],
        "argsOverrider": [
            {"containerName": "web", "operator": "remove", "value": ["--verbose"]},
            {"containerName": "proxy", "operator": "add", "value": ["--log-level", "debug"]},
            {"containerName": "missing", "operator": "add", "value": ["ignored"]},
        ],
    }
    containers = apply_overriders(web_deployment(), rule)["spec"]["template"]["spec"]["containers"]
    assert containers[0]["command"] == ["/bin/web", "--config", "/etc/web/web.yaml"]
    assert containers[0]["args"] == ["--port=8080"]
    assert containers[1]["args"] == ["--log-level", "debug"]
    assert "command" not in containers[1]


def test_removing_from_an_absent_list_adds_nothing() -> None:
    """A container without args stays without args when args are removed."""
    rule = {"argsOverrider": [{"containerName": "proxy", "operator": "remove", "value": ["--x"]}]}
    proxy = apply_overriders(web_deployment(), rule)["spec"]["template"]["spec"]["containers"][1]
    assert "args" not in proxy


def test_labels_and_annotations_overriders_add_replace_and_remove() -> None:
    """Add sets keys, replace changes only existing keys, remove deletes existing keys."""
    rule = {
        "labelsOverrider": [
            {"operator": "add", "value": {"region": "eu", "app.kubernetes.io/part-of": "shop"}},
            {"operator": "replace", "value": {"tier": "edge", "absent": "x"}},
            {"operator": "remove", "value": {"app": "", "missing": ""}},
        ],
        "annotationsOverrider": [{"operator": "add", "value": {"owner": "team-eu"}}],
    }
    metadata = apply_overriders(web_deployment(), rule)["metadata"]
    assert metadata["labels"] == {"tier": "edge", "region": "eu", "app.kubernetes.io/part-of": "shop"}
    assert metadata["annotations"] == {"team": "storefront", "owner": "team-eu"}


def test_labels_overrider_creates_the_map_only_to_add() -> None:
    """An object without labels gains them on add; replace and remove leave it without."""
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    assert (
        apply_overriders(config_map, {"labelsOverrider": [{"operator": "remove", "value": {"a": ""}}]})
        == config_map
    )
    added = apply_overriders(config_map, {"labelsOverrider": [{"operator": "add", "value": {"a": "1"}}]})
    assert added["metadata"]["labels"] == {"a": "1"}


def _config_map(**data: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "db", "namespace": "shop"},
        "data": data,
    }


def test_field_overrider_patches_yaml_inside_a_config_map() -> None:
    """One value of an embedded YAML document changes; the rest is written back as it was."""
    document = "database:\n  host: db.local\n  port: 5432\n  since: 2024-01-01\nreplicas:\n- a\n- b\n"
    rule = {
        "fieldOverrider": [
            {
                "fieldPath": "/data/db-config.yaml",
                "yaml": [
                    {"subPath": "/database/host", "operator": "replace", "value": "db.eu.example"},
                    {"subPath": "/database/tls", "operator": "add", "value": True},
                    {"subPath": "/replicas/0", "operator": "remove"},
                ],
            }
        ]
    }
    overridden = apply_overriders(_config_map(**{"db-config.yaml": document}), rule)
    assert overridden["data"]["db-config.yaml"] == (
        "database:\n  host: db.eu.example\n  port: 5432\n  since: '2024-01-01'\n  tls: true\nreplicas:\n- b\n"
    )


def test_field_overrider_patches_json_inside_a_config_map() -> None:
    """An embedded JSON document is patched and written compactly, keys in their order."""
    rule = {
        "fieldOverrider": [
            {
                "fieldPath": "/data/settings.json",
                "json": [
                    {"subPath": "/log/level", "operator": "replace", "value": "debug"},
                    {"subPath": "/features/-", "operator": "add", "value": "beta<1>"},
                ],
            }
        ]
    }
    document = json.dumps({"log": {"level": "info", "format": "json"}, "features": ["a"]}, indent=2)
    overridden = apply_overriders(_config_map(**{"settings.json": document}), rule)
    assert overridden["data"]["settings.json"] == (
        '{"log":{"level":"debug","format":"json"},"features":["a","beta\\u003c1\\u003e"]}'
    )


@pytest.mark.parametrize(
    ("overrider", "message"),
    [
        ({"fieldPath": "/data/missing", "json": [{"subPath": "/a", "operator": "remove"}]}, "path"),
        ({"fieldPath": "/metadata", "json": [{"subPath": "/a", "operator": "remove"}]}, "is not string"),
        (
            {"fieldPath": "/data/settings.json", "json": [{"subPath": "/a", "operator": "remove"}]},
            "not a JSON document",
        ),
        (
            {"fieldPath": "/data/config.yaml", "yaml": [{"subPath": "/nope", "operator": "remove"}]},
            "non-existent",
        ),
    ],
)
def test_field_overrider_errors_say_what_failed(overrider: dict[str, Any], message: str) -> None:
    """Missing fields, non-string fields, bad documents and failing operations are reported."""
    config_map = _config_map(**{"settings.json": "{not json", "config.yaml": "a: 1\n"})
    with pytest.raises(OverrideError, match=rf"fieldOverrider\[0\]: .*{message}"):
        apply_overriders(config_map, {"fieldOverrider": [overrider]})


def test_plaintext_adds_replaces_and_removes_by_json_pointer() -> None:
    """Plaintext overriders are an RFC 6902 patch on the manifest."""
    rule = {
        "plaintext": [
            {"path": "/spec/replicas", "operator": "replace", "value": 1},
            {"path": "/metadata/annotations/region", "operator": "add", "value": "eu"},
            {"path": "/spec/template/spec/containers/0/env/2", "operator": "remove"},
            {"path": "/spec/template/spec/hostNetwork", "operator": "add", "value": True},
        ]
    }
    overridden = apply_overriders(web_deployment(), rule)
    assert overridden["spec"]["replicas"] == 1
    assert overridden["metadata"]["annotations"]["region"] == "eu"
    assert [env["name"] for env in overridden["spec"]["template"]["spec"]["containers"][0]["env"]] == [
        "MODE",
        "TOKEN",
    ]
    assert overridden["spec"]["template"]["spec"]["hostNetwork"] is True


@pytest.mark.parametrize(
    "overrider",
    [
        {"path": "/spec/nothing", "operator": "replace", "value": 1},
        {"path": "/spec/nothing", "operator": "remove"},
        {"path": "/spec/a/b", "operator": "add", "value": 1},
        {"path": "/spec/replicas", "operator": "merge", "value": 1},
    ],
)
def test_plaintext_that_does_not_apply_fails(overrider: dict[str, Any]) -> None:
    """A patch operation on a missing path or with an unknown operator is an override error."""
    with pytest.raises(OverrideError, match="plaintext: "):
        apply_overriders(web_deployment(), {"plaintext": [overrider]})


def test_overriders_apply_in_karmadas_order_whatever_the_listing_order() -> None:
    """Plaintext runs last, so it sees the labels and images the other overriders produced."""
    rule = {
        "plaintext": [
            {"path": "/metadata/labels/region", "operator": "replace", "value": "eu-west"},
            {"path": "/spec/template/spec/containers/0/image", "operator": "replace", "value": "pinned:1"},
        ],
        "labelsOverrider": [{"operator": "add", "value": {"region": "eu"}}],
        "imageOverrider": [{"component": "Tag", "operator": "replace", "value": "9"}],
    }
    overridden = apply_overriders(web_deployment(), rule)
    assert overridden["metadata"]["labels"]["region"] == "eu-west"
    assert _images(overridden)[0] == "pinned:1"


def test_overriders_never_modify_their_input() -> None:
    """The template stays as it was; the overridden copy shares nothing with it."""
    template = web_deployment()
    overridden = apply_overriders(template, {"labelsOverrider": [{"operator": "add", "value": {"x": "1"}}]})
    assert template == web_deployment()
    overridden["spec"]["template"]["spec"]["containers"][0]["image"] = "changed"
    assert template == web_deployment()
