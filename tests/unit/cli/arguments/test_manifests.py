"""Reading `-f` manifests for apply and plan: YAML and JSON streams, Lists, directories, stdin, errors."""

from __future__ import annotations

import io
from pathlib import Path

from flotilla.cli.arguments.manifests import STDIN_SOURCE, manifest_paths, parse_manifests, read_manifests

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
spec:
  replicas: 2
"""
CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {when: 2024-01-02, at: 2024-01-02T03:04:05Z, enabled: "true"}
"""


def test_a_yaml_stream_gives_its_documents_in_order_and_skips_empty_ones() -> None:
    """Documents separated by `---` come out in order; empty documents are no objects."""
    found = parse_manifests(f"---\n{DEPLOYMENT}---\n---\n{CONFIG_MAP}", "app.yaml")
    assert [m.object["kind"] for m in found.manifests] == ["Deployment", "ConfigMap"]
    assert {m.source for m in found.manifests} == {"app.yaml"}
    assert found.errors == []


def test_timestamps_stay_the_strings_they_were_written_as() -> None:
    """Unquoted dates are not turned into datetimes: the ConfigMap data is applied as written."""
    (config_map,) = parse_manifests(CONFIG_MAP, "cm.yaml").manifests
    assert config_map.object["data"] == {
        "when": "2024-01-02",
        "at": "2024-01-02T03:04:05Z",
        "enabled": "true",
    }


def test_a_json_object_is_one_manifest() -> None:
    """A JSON file holds one object."""
    found = parse_manifests(
        '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}', "ns.json"
    )
    assert [m.name for m in found.manifests] == ["demo"]


def test_a_list_stands_for_its_items_and_typed_lists_give_items_their_kind() -> None:
    """`v1 List` items are applied one by one; a DeploymentList's items become Deployments."""
    text = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
- {apiVersion: v1, kind: Secret, metadata: {name: b}}
---
apiVersion: apps/v1
kind: DeploymentList
items:
- {metadata: {name: c}}
"""
    found = parse_manifests(text, "list.yaml")
    assert [(m.object["apiVersion"], m.object["kind"], m.name) for m in found.manifests] == [
        ("v1", "ConfigMap", "a"),
        ("v1", "Secret", "b"),
        ("apps/v1", "Deployment", "c"),
    ]


def test_an_object_without_kind_is_reported_in_kubectls_words() -> None:
    """A document without `kind` is an error naming the source, and the other documents still count."""
    found = parse_manifests(f"apiVersion: v1\nmetadata: {{name: x}}\n---\n{DEPLOYMENT}", "bad.yaml")
    assert [m.name for m in found.manifests] == ["nginx"]
    assert len(found.errors) == 1
    assert found.errors[0].startswith("unable to decode \"bad.yaml\": Object 'Kind' is missing in")


def test_a_document_that_is_not_an_object_is_an_error() -> None:
    """A YAML list at the top of a document is not a Kubernetes object."""
    found = parse_manifests("- a\n- b\n", "list.yaml")
    assert found.manifests == []
    assert found.errors == ['unable to decode "list.yaml": document 1 is a list, not an object']


def test_broken_yaml_keeps_the_documents_before_it_and_reports_one_line() -> None:
    """A syntax error ends the stream: earlier documents are kept, the error is one line naming the file."""
    found = parse_manifests(f"{DEPLOYMENT}---\nkind: [unclosed\n", "broken.yaml")
    assert [m.name for m in found.manifests] == ["nginx"]
    assert len(found.errors) == 1
    assert found.errors[0].startswith("error parsing broken.yaml: ")
    assert "\n" not in found.errors[0]


def test_a_directory_gives_its_manifest_files_in_name_order(tmp_path: Path) -> None:
    """Only .json, .yaml and .yml files are read, sorted; sub-directories only with recursion."""
    (tmp_path / "b.yaml").write_text(CONFIG_MAP)
    (tmp_path / "a.yml").write_text(DEPLOYMENT)
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "c.json").write_text("{}")
    assert [p.name for p in manifest_paths(tmp_path, recursive=False)] == ["a.yml", "b.yaml"]
    assert [p.name for p in manifest_paths(tmp_path, recursive=True)] == ["a.yml", "b.yaml", "c.json"]


def test_a_file_named_explicitly_is_read_whatever_its_extension(tmp_path: Path) -> None:
    """`-f manifest.txt` is read: extensions only filter directories."""
    path = tmp_path / "manifest.txt"
    path.write_text(CONFIG_MAP)
    found = read_manifests([str(path)], recursive=False, stdin=io.StringIO())
    assert [m.name for m in found.manifests] == ["settings"]
    assert found.manifests[0].source == str(path)


def test_stdin_is_read_once_and_missing_paths_and_urls_are_errors(tmp_path: Path) -> None:
    """`-` reads standard input (named STDIN); a missing path and a URL are reported, reading goes on."""
    found = read_manifests(
        ["-", str(tmp_path / "missing.yaml"), "https://example.com/app.yaml", "-"],
        recursive=False,
        stdin=io.StringIO(DEPLOYMENT),
    )
    assert [(m.name, m.source) for m in found.manifests] == [("nginx", STDIN_SOURCE)]
    assert found.errors == [
        f'the path "{tmp_path / "missing.yaml"}" does not exist',
        'reading manifests from a URL is not supported: "https://example.com/app.yaml"',
    ]
