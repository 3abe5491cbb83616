"""Reading the manifests of `-f`: files, directories and standard input, as kubectl reads them.

`flotilla apply -f` and `flotilla plan -f` accept what `kubectl apply -f` does
except URLs: a file of any name, a directory (its `.json`, `.yaml` and `.yml` files in name order,
sub-directories too with `-R`), or `-` for standard input. A file holds one JSON object or a YAML
stream of `---`-separated documents; empty documents are skipped, and a `List` (`v1 List` or a
typed `DeploymentList`) stands for its items.

Decoding follows kubectl's YAML reading rather than YAML 1.1 to the letter: unquoted timestamps stay
strings (a Kubernetes object never holds a YAML timestamp), so what is applied is what was written.
A problem with one source (missing file, broken YAML, an object without `kind`) is reported in
kubectl's words and does not stop the other sources: `apply` applies what could be read and exits
non-zero at the end, as kubectl does; `plan` plans nothing unless everything could be read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import yaml

MANIFEST_EXTENSIONS = (".json", ".yaml", ".yml")
"""The files of a directory that are read; a file named explicitly is read whatever its name."""
STDIN = "-"
STDIN_SOURCE = "STDIN"
"""How messages name standard input."""
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class _ManifestLoader(yaml.SafeLoader):
    """PyYAML's safe loader without implicit timestamps: `2024-01-02` stays the string it was."""


_ManifestLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != _TIMESTAMP_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass(frozen=True, slots=True)
class Manifest:
    """One object to apply and where it came from (a path, or `STDIN`)."""

    object: dict[str, Any]
    source: str

    @property
    def api_version(self) -> str:
        return str(self.object.get("apiVersion") or "")

    @property
    def kind(self) -> str:
        return str(self.object.get("kind") or "")

    @property
    def name(self) -> str:
        return str(self._metadata.get("name") or "")

    @property
    def namespace(self) -> str:
        return str(self._metadata.get("namespace") or "")

    @property
    def _metadata(self) -> Mapping[str, Any]:
        metadata = self.object.get("metadata")
        return metadata if isinstance(metadata, Mapping) else {}


@dataclass
class ManifestSet:
    """What a set of sources held: the objects in order, and one message per problem."""

    manifests: list[Manifest]
    errors: list[str]


def parse_manifests(text: str, source: str) -> ManifestSet:
    """The objects of one JSON or YAML stream; a broken document ends the stream with an error."""
    found = ManifestSet([], [])
    try:
        for position, document in enumerate(yaml.load_all(text, Loader=_ManifestLoader)):
            if document is None:
                continue
            _add_document(found, document, source, position)
    except yaml.YAMLError as exc:
        found.errors.append(f"error parsing {source}: {_one_line(str(exc))}")
    return found


def _add_document(found: ManifestSet, document: Any, source: str, position: int) -> None:
    if not isinstance(document, dict):
        found.errors.append(
            f'unable to decode "{source}": document {position + 1} is a {_yaml_type(document)}, not an object'
        )
        return
    problem = _missing_type_fields(document)
    if problem:
        found.errors.append(f'unable to decode "{source}": {problem}')
        return
    if _is_list(document):
        for item in _list_items(document):
            _add_document(found, item, source, position)
        return
    found.manifests.append(Manifest(document, source))


def _missing_type_fields(document: dict[str, Any]) -> str:
    for field in ("kind", "apiVersion"):
        value = document.get(field)
        if not isinstance(value, str) or not value:
            shown = "Kind" if field == "kind" else field
            return f"Object '{shown}' is missing in '{_preview(document)}'"
    return ""


def _is_list(document: dict[str, Any]) -> bool:
    return str(document["kind"]).endswith("List") and isinstance(document.get("items"), list)


def _list_items(document: dict[str, Any]) -> Iterable[Any]:
    """The items of a List; items of a typed list (`DeploymentList`) get the list's kind and version."""
    item_kind = str(document["kind"])[: -len("List")]
    for item in document["items"]:
        if isinstance(item, dict) and item_kind and "kind" not in item:
            yield {"apiVersion": document["apiVersion"], "kind": item_kind, **item}
        else:
            yield item


def manifest_paths(path: Path, recursive: bool) -> list[Path]:
    """The files `path` names: itself, or a directory's manifest files in name order."""
    if not path.is_dir():
        return [path]
    pattern = "**/*" if recursive else "*"
    return sorted(
        candidate
        for candidate in path.glob(pattern)
        if candidate.is_file() and candidate.suffix.lower() in MANIFEST_EXTENSIONS
    )


def read_manifests(filenames: Sequence[str], recursive: bool, stdin: TextIO) -> ManifestSet:
    """Every object of the `-f` arguments, in order; problems are collected, not raised."""
    found = ManifestSet([], [])
    stdin_read = False
    for filename in filenames:
        if filename == STDIN:
            if not stdin_read:
                _merge(found, parse_manifests(stdin.read(), STDIN_SOURCE))
                stdin_read = True
            continue
        if "://" in filename:
            found.errors.append(f'reading manifests from a URL is not supported: "{filename}"')
            continue
        path = Path(filename)
        if not path.exists():
            found.errors.append(f'the path "{filename}" does not exist')
            continue
        for file in manifest_paths(path, recursive):
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                found.errors.append(f"error reading {file}: {exc}")
                continue
            _merge(found, parse_manifests(text, str(file)))
    return found


def _merge(into: ManifestSet, more: ManifestSet) -> None:
    into.manifests.extend(more.manifests)
    into.errors.extend(more.errors)


def _yaml_type(value: Any) -> str:
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def _preview(document: dict[str, Any], limit: int = 120) -> str:
    text = json.dumps(document, separators=(",", ":"), sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _one_line(message: str) -> str:
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
