"""Reading `-f` manifests the way kubectl does: files, directories and `-` for standard input.

A file holds one or more YAML documents (JSON is YAML too); a directory contributes its `.yaml`,
`.yml` and `.json` files in name order (not recursively, kubectl's default); `-` reads standard
input once. Empty documents are skipped and a `List` (any kind ending in `List` with `items`)
contributes its items. Every object needs `apiVersion`, `kind` and `metadata.name`; anything
unreadable is a `ManifestError` naming the source, never a half-read set.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import yaml

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"


class ManifestError(Exception):
    """A manifest that cannot be read: missing, not YAML, or not a Kubernetes object."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """One object and where it came from (a path, or `-`)."""

    source: str
    obj: dict[str, Any]

    @property
    def api_version(self) -> str:
        return str(self.obj.get("apiVersion") or "")

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind") or "")

    @property
    def name(self) -> str:
        return str(_name_of(self.obj) or "")

    @property
    def namespace(self) -> str:
        metadata = self.obj.get("metadata")
        return str(metadata.get("namespace") or "") if isinstance(metadata, Mapping) else ""


def read_manifests(paths: Sequence[str], stdin: TextIO) -> list[Manifest]:
    """Every object of every path, in order."""
    manifests: list[Manifest] = []
    stdin_read = False
    for path in paths:
        if path == STDIN:
            if stdin_read:
                continue
            stdin_read = True
            manifests.extend(parse_manifests(stdin.read(), STDIN))
            continue
        for file in _files(Path(path)):
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise ManifestError(f"{file}: {error}") from error
            manifests.extend(parse_manifests(text, str(file)))
    return manifests


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(
            child for child in path.iterdir() if child.is_file() and child.suffix in MANIFEST_SUFFIXES
        )
    if not path.exists():
        raise ManifestError(f'the path "{path}" does not exist')
    return [path]


def parse_manifests(text: str, source: str) -> list[Manifest]:
    """The objects in one YAML stream."""
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError as error:
        raise ManifestError(f"{source}: not valid YAML: {_one_line(str(error))}") from error
    manifests: list[Manifest] = []
    for position, document in enumerate(documents, start=1):
        if document is None:
            continue
        if not isinstance(document, Mapping):
            raise ManifestError(f"{source}: document {position} is not an object")
        manifests.extend(Manifest(source, obj) for obj in _objects(document, source, position))
    return manifests


def _objects(document: Mapping[str, Any], source: str, position: int) -> Iterator[dict[str, Any]]:
    kind = document.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(document.get("items"), list):
        for item in document["items"]:
            if not isinstance(item, Mapping):
                raise ManifestError(f"{source}: document {position}: a list item is not an object")
            yield from _objects(item, source, position)
        return
    missing = [
        field
        for field, value in (
            ("apiVersion", document.get("apiVersion")),
            ("kind", kind),
            ("metadata.name", _name_of(document)),
        )
        if not isinstance(value, str) or not value
    ]
    if missing:
        needed = ", ".join(missing)
        raise ManifestError(
            f"{source}: document {position}: an object needs {needed} ({_describe(document)})"
        )
    yield dict(document)


def _name_of(document: Mapping[str, Any]) -> object:
    metadata = document.get("metadata")
    return metadata.get("name") if isinstance(metadata, Mapping) else None


def _describe(document: Mapping[str, Any]) -> str:
    kind = document.get("kind") or "no kind"
    name = _name_of(document)
    return f"{kind} {name}" if name else str(kind)


def _one_line(text: str) -> str:
    return " ".join(text.split())
