"""Reading the manifests `flotilla plan -f` is given: files, directories, stdin, Lists and bad input."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from flotilla.cli.planning.manifests import ManifestError, parse_manifests, read_manifests

DEPLOYMENT = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
POLICY = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web}\n"


def test_a_stream_gives_its_objects_in_order_and_skips_empty_documents() -> None:
    """Documents separated by `---` come out in order; empty ones are dropped."""
    found = parse_manifests(f"---\n{DEPLOYMENT}---\n---\n{POLICY}", "app.yaml")
    assert [(item.kind, item.name, item.namespace) for item in found] == [
        ("Deployment", "web", "shop"),
        ("PropagationPolicy", "web", ""),
    ]
    assert {item.source for item in found} == {"app.yaml"}


def test_a_list_contributes_its_items() -> None:
    """A `kind: List` (as kubectl get -o yaml prints) is flattened into its objects."""
    text = (
        '{"apiVersion": "v1", "kind": "List", "items": ['
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},'
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}]}'
    )
    assert [item.name for item in parse_manifests(text, "list.json")] == ["a", "b"]


def test_a_directory_contributes_its_manifest_files_in_name_order(tmp_path: Path) -> None:
    """Only .yaml/.yml/.json files are read, sorted by name, not recursively."""
    (tmp_path / "b.yaml").write_text(POLICY)
    (tmp_path / "a.yml").write_text(DEPLOYMENT)
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "c.yaml").write_text(DEPLOYMENT)
    found = read_manifests([str(tmp_path)], io.StringIO())
    assert [item.kind for item in found] == ["Deployment", "PropagationPolicy"]


def test_standard_input_is_read_once(tmp_path: Path) -> None:
    """`-` reads stdin; naming it twice does not duplicate its objects."""
    found = read_manifests(["-", "-"], io.StringIO(DEPLOYMENT))
    assert [(item.source, item.name) for item in found] == [("-", "web")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind: [unclosed", "not valid YAML"),
        ("- just\n- a list\n", "document 1 is not an object"),
        ("apiVersion: v1\nkind: ConfigMap\n", "an object needs metadata.name (ConfigMap)"),
        ("metadata: {name: x}\n", "an object needs apiVersion, kind (no kind x)"),
    ],
)
def test_unreadable_documents_are_errors_naming_the_source(text: str, message: str) -> None:
    """Bad YAML or an object without its identity fails with the file name and what is wrong."""
    with pytest.raises(ManifestError, match=r"^bad\.yaml: ") as raised:
        parse_manifests(text, "bad.yaml")
    assert message in str(raised.value)


def test_a_missing_path_is_an_error(tmp_path: Path) -> None:
    """A path that does not exist is reported as kubectl reports it."""
    with pytest.raises(ManifestError, match=r'the path ".*missing\.yaml" does not exist'):
        read_manifests([str(tmp_path / "missing.yaml")], io.StringIO())
