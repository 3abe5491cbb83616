"""How `hostile.py` aims schemathesis' generated cases at objects that exist, past kube's first checks.

Generated as they come, nearly every case is refused before it reaches anything worth testing: a
random namespace or name is 404, a body of another kind or media type 400 or 415, a random `dryRun`
400. `Aim.steer` rewrites a case (in place, before it is sent): the namespace becomes the bench's,
the name a seed's or one an earlier case created (`Aim.remember` notes them, and has a deleted seed
made again), a body goes as JSON with the operation's apiVersion and kind and a name that fits, a
JSON patch as a list of operations (kube's documents give patches the schema of an object), and,
when asked, the query parameters kube checks first get valid values.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import schemathesis

from hostile_objects import NAMESPACE, SEED, SEEDS, seed_path

JSON_PATCH = "application/json-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
READABLE = (
    "application/json",
    "application/yaml",
    JSON_PATCH,
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    APPLY_PATCH,
)
"""The request media types kube reads."""


def resource_of(operation_path: str) -> str:
    """The collection an operation works on: its path up to `/{name}`."""
    return operation_path.split("/{name}", 1)[0]


@dataclass
class Aim:
    """What steers generated cases towards objects that exist: the bench's namespace, names created."""

    restore_seed: Callable[[str], None]
    """Makes the seed object of a collection (an operation path up to `/{name}`) again."""
    prefix: str
    """Of the names this worker's creates get (`fz-<worker>-<n>`): workers never create the same name."""
    created: dict[str, list[str]] = field(
        default_factory=lambda: {seed_path(collection): [SEED] for collection in SEEDS}
    )
    """A collection (operation path up to `/{name}`, namespace filled in) → names created in it."""
    serial: int = 0

    def collection(self, operation_path: str, path_parameters: dict[str, Any]) -> str:
        return resource_of(operation_path).replace("{namespace}", str(path_parameters.get("namespace", "")))

    def steer(self, case: schemathesis.Case, rng: random.Random, *, query: bool) -> None:
        """Aim the case at existing objects and past the first checks (`query`: the query too)."""
        operation = case.operation
        raw = operation.definition.raw
        parameters = case.path_parameters if case.path_parameters is not None else {}
        if "namespace" in parameters:
            parameters["namespace"] = NAMESPACE
        names = self.created.get(self.collection(operation.path, parameters))
        if "name" in parameters and names:
            parameters["name"] = rng.choice(names)
        if case.media_type not in READABLE and isinstance(case.body, dict | list):
            # For kube's `*/*` schemathesis picks any media type (XML, images, forms…): all are 415.
            case.media_type = "application/json"
        if query and case.query is not None:
            repair_query(case.query, case.media_type)
        kind = raw.get("x-kubernetes-group-version-kind")
        action = raw.get("x-kubernetes-action", "")
        if isinstance(case.body, dict) and kind and action not in ("delete", "deletecollection"):
            self.type_meta(case.body, kind, parameters)
        if case.media_type == JSON_PATCH and isinstance(case.body, dict):
            # kube's documents give every patch the schema of an object; a JSON patch is a list of operations.
            case.body = [{"op": "add", "path": f"/{key}", "value": value} for key, value in case.body.items()]

    def type_meta(self, body: dict[str, Any], kind: dict[str, str], parameters: dict[str, Any]) -> None:
        group, version = kind.get("group", ""), kind.get("version", "")
        body["apiVersion"] = f"{group}/{version}" if group else version
        body["kind"] = kind.get("kind", "")
        metadata = body.get("metadata")
        if not isinstance(metadata, dict):
            metadata = body["metadata"] = {}
        if "name" in parameters:
            metadata["name"] = unquote(str(parameters["name"]))  # path parameters are kept percent-encoded
        else:
            metadata.pop("resourceVersion", None)  # a create that sets one is refused before anything else
            self.serial += 1
            metadata["name"] = f"{self.prefix}-{self.serial}"
        if "namespace" in parameters:
            metadata["namespace"] = parameters["namespace"]

    def remember(self, case: schemathesis.Case, status: int, body: Any) -> None:
        """Note the name a create made; make the seed again when a case deleted it."""
        if case.method.upper() == "DELETE" and 200 <= status < 300:
            collection = resource_of(case.operation.path)
            if collection in SEEDS and (case.path_parameters or {}).get("name", SEED) == SEED:
                self.restore_seed(collection)
        if case.method.upper() != "POST" or status not in (200, 201) or not isinstance(body, dict):
            return
        name = body.get("metadata", {}).get("name") if isinstance(body.get("metadata"), dict) else None
        if isinstance(name, str):
            parameters = case.path_parameters or {}
            self.created.setdefault(self.collection(case.operation.path, parameters), []).append(name)


def repair_query(query: dict[str, Any], media_type: str | None) -> None:
    """Values kube refuses before anything else (most generated ones), made valid."""
    if "dryRun" in query:
        query["dryRun"] = "All"
    if query.get("fieldValidation") not in (None, "Ignore", "Warn", "Strict"):
        query["fieldValidation"] = "Warn"  # kube's default: generated bodies are full of unknown fields
    if "fieldManager" in query or media_type == APPLY_PATCH:
        query["fieldManager"] = "hostile"
    if media_type != APPLY_PATCH:
        query.pop("force", None)
