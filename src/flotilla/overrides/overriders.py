"""Applying one override rule's overriders to a manifest, in Karmada's fixed order.

An override rule (`spec.overrideRules[i].overriders` of an OverridePolicy) holds lists of
overriders of seven types. They are applied one type after another, always in the order Karmada
applies them, whatever order the policy lists them in:

1. `imageOverrider`: edit the registry, repository or tag (or digest) of an image. With a
   `predicate.path` it edits the image at that JSON pointer; without, it edits every container
   image (`spec.containers[*].image`) of a Pod, or of the pod template of a ReplicaSet, Deployment,
   DaemonSet, StatefulSet or Job, and leaves other kinds alone.
2. `commandOverrider`, 3. `argsOverrider`: append items to (`add`) or delete items from (`remove`)
   the command or args of the named container of those same kinds.
4. `labelsOverrider`, 5. `annotationsOverrider`: `add` sets keys (creating the map), `replace`
   changes keys that exist, `remove` deletes keys that exist.
6. `fieldOverrider`: patch a JSON or YAML document stored in a string field
   (`/data/config.yaml` of a ConfigMap), see `flotilla.overrides.embedded`.
7. `plaintext`: an RFC 6902 JSON patch on the manifest (`path`, `operator`, `value`), applied as
   one patch.

A failure raises `OverrideError` naming the overrider (`imageOverrider[1]: ...`); the policy layer
adds the policy and rule, and the Work fails with that message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any

import jsonpatch

from flotilla.api.objects import copy_object
from flotilla.interpreter import kinds
from flotilla.interpreter.kinds import GroupKind, InterpreterError
from flotilla.overrides.embedded import EmbeddedDocumentError, patch_json_document, patch_yaml_document
from flotilla.overrides.images import ImageReference, ImageReferenceError, parse_image

Manifest = dict[str, Any]

CONTAINER_KINDS: frozenset[GroupKind] = frozenset(
    {kinds.POD, kinds.REPLICA_SET, kinds.DEPLOYMENT, kinds.DAEMON_SET, kinds.STATEFUL_SET, kinds.JOB}
)
"""Kinds whose containers image, command and args overriders find without a predicate."""

OVERRIDER_ORDER = (
    "imageOverrider",
    "commandOverrider",
    "argsOverrider",
    "labelsOverrider",
    "annotationsOverrider",
    "fieldOverrider",
    "plaintext",
)
"""The order in which the overrider types of one rule are applied."""


class OverrideError(ValueError):
    """An override that cannot be applied; the message says which policy, rule and overrider failed."""


class _OverriderFailure(ValueError):
    """One overrider failed; `apply_overriders` adds which one."""


def _string(overrider: Mapping[str, Any], field: str) -> str:
    value = overrider.get(field, "")
    if not isinstance(value, str):
        raise _OverriderFailure(f"{field} must be a string, got {value!r}")
    return value


def _patch(manifest: Manifest, operations: list[dict[str, Any]]) -> None:
    try:
        jsonpatch.apply_patch(manifest, operations, in_place=True)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as error:
        raise _OverriderFailure(str(error)) from error


def _containers_path(manifest: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The path of the app containers list of a kind the overriders target without a predicate."""
    group_kind = kinds.group_kind(manifest)
    if group_kind not in CONTAINER_KINDS:
        return None
    return (*kinds.POD_TEMPLATE_PATHS[group_kind], "containers")


def _containers(manifest: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The JSON pointer and content of each app container of a targeted kind."""
    path = _containers_path(manifest)
    if path is None:
        return
    for index, container in enumerate(kinds.nested_list(manifest, *path)):
        if isinstance(container, Mapping):
            yield "/" + "/".join((*path, str(index))), container


# --- images --------------------------------------------------------------------------------------------


def _override_image(image: str, overrider: Mapping[str, Any]) -> str:
    """`image` with the overrider's component changed (`Registry`, `Repository` or `Tag`)."""
    try:
        reference = parse_image(image)
    except ImageReferenceError as error:
        raise _OverriderFailure(f"failed to parse image value({image}), error: {error}") from error
    component = overrider.get("component")
    operator = overrider.get("operator")
    value = _string(overrider, "value")
    if operator not in ("add", "remove", "replace"):
        raise _OverriderFailure(f"unsupported operator {operator!r}")
    edited: ImageReference
    if component == "Registry":
        registry = {"add": reference.registry + value, "replace": value, "remove": ""}[operator]
        edited = ImageReference(registry, reference.repository, reference.tag, reference.digest)
    elif component == "Repository":
        repository = {"add": reference.repository + value, "replace": value, "remove": ""}[operator]
        edited = ImageReference(reference.registry, repository, reference.tag, reference.digest)
    elif component == "Tag":
        if operator == "remove":
            edited = reference.without_tag_or_digest()
        else:
            new_tag = reference.tag_or_digest + value if operator == "add" else value
            edited = reference.with_tag_or_digest(new_tag)
    else:
        raise _OverriderFailure(f"unsupported image component({component})")
    return str(edited)


def _apply_image(manifest: Manifest, overrider: Mapping[str, Any]) -> None:
    predicate = overrider.get("predicate")
    if isinstance(predicate, Mapping):
        path = _string(predicate, "path")
        if not path.startswith("/"):
            raise _OverriderFailure("imagePath should be start with / character")
        try:
            image = jsonpatch.JsonPointer(path).resolve(manifest)
        except jsonpatch.JsonPointerException as error:
            raise _OverriderFailure(
                f"failed to obtain imageValue with predicate path({path}), error: {error}"
            ) from error
        if not isinstance(image, str):
            raise _OverriderFailure(f"failed to obtain imageValue with predicate path({path}): not a string")
        targets = [(path, image)]
    else:
        targets = [
            (f"{pointer}/image", str(container.get("image") or ""))
            for pointer, container in _containers(manifest)
        ]
    _patch(
        manifest,
        [
            {"op": "replace", "path": path, "value": _override_image(image, overrider)}
            for path, image in targets
        ],
    )


# --- command and args ----------------------------------------------------------------------------------


def _apply_command_args(field: str, manifest: Manifest, overrider: Mapping[str, Any]) -> None:
    name = _string(overrider, "containerName")
    operator = overrider.get("operator")
    values = [str(value) for value in overrider.get("value") or []]
    for pointer, container in _containers(manifest):
        if container.get("name") != name:
            continue
        current = container.get(field)
        items = [str(item) for item in current] if isinstance(current, list) else []
        if operator == "add":
            items = items + values
        elif operator == "remove":
            removed = set(values)
            items = [item for item in items if item not in removed]
        else:
            continue
        if current is None:
            # An absent list stays absent when nothing is added: kube treats [] and absent alike.
            if items:
                _patch(manifest, [{"op": "add", "path": f"{pointer}/{field}", "value": items}])
        else:
            _patch(manifest, [{"op": "replace", "path": f"{pointer}/{field}", "value": items}])


# --- labels and annotations ----------------------------------------------------------------------------


def _apply_string_map(field: str, manifest: Manifest, overrider: Mapping[str, Any]) -> None:
    operator = overrider.get("operator")
    values = overrider.get("value") or {}
    if not isinstance(values, Mapping):
        raise _OverriderFailure(f"value must be a map of strings, got {values!r}")
    if operator not in ("add", "remove", "replace"):
        raise _OverriderFailure(f"unsupported operator {operator!r}")
    metadata = manifest.get("metadata")
    if not isinstance(metadata, dict):
        metadata = manifest["metadata"] = {}
    current = metadata.get(field)
    if not isinstance(current, dict):
        if operator != "add" or not values:
            return
        current = metadata[field] = {}
    for key, value in values.items():
        if operator == "add":
            current[key] = str(value)
        elif key in current:
            if operator == "replace":
                current[key] = str(value)
            else:
                del current[key]


# --- embedded documents and plaintext ------------------------------------------------------------------


def _apply_field(manifest: Manifest, overrider: Mapping[str, Any]) -> None:
    path = _string(overrider, "fieldPath")
    try:
        text = jsonpatch.JsonPointer(path).resolve(manifest)
    except jsonpatch.JsonPointerException as error:
        raise _OverriderFailure(f"get value by overrider's path({path}): {error}") from error
    if not isinstance(text, str):
        raise _OverriderFailure(f"Get object's value by overrider's path({path}) is not string")
    try:
        if overrider.get("yaml"):
            patched = patch_yaml_document(text, overrider["yaml"])
        elif overrider.get("json"):
            patched = patch_json_document(text, overrider["json"])
        else:
            return
    except EmbeddedDocumentError as error:
        raise _OverriderFailure(f"{path}: {error}") from error
    _patch(manifest, [{"op": "replace", "path": path, "value": patched}])


def _apply_plaintext(manifest: Manifest, overriders: list[Mapping[str, Any]]) -> None:
    _patch(
        manifest,
        [
            {
                "op": overrider.get("operator"),
                "path": overrider.get("path", ""),
                "value": overrider.get("value"),
            }
            for overrider in overriders
        ],
    )


_APPLIERS: Mapping[str, Callable[[Manifest, Mapping[str, Any]], None]] = {
    "imageOverrider": _apply_image,
    "commandOverrider": partial(_apply_command_args, "command"),
    "argsOverrider": partial(_apply_command_args, "args"),
    "labelsOverrider": partial(_apply_string_map, "labels"),
    "annotationsOverrider": partial(_apply_string_map, "annotations"),
    "fieldOverrider": _apply_field,
}


def _entries(overriders: Mapping[str, Any], field: str) -> list[Mapping[str, Any]]:
    entries = overriders.get(field) or []
    if not isinstance(entries, list) or not all(isinstance(entry, Mapping) for entry in entries):
        raise OverrideError(f"{field}: expected a list of objects")
    return entries


def apply_overriders(manifest: Mapping[str, Any], overriders: Mapping[str, Any]) -> Manifest:
    """A copy of `manifest` with one rule's overriders applied in Karmada's order."""
    result = copy_object(dict(manifest))
    apply_overriders_in_place(result, overriders)
    return result


def apply_overriders_in_place(result: Manifest, overriders: Mapping[str, Any]) -> None:
    """Apply one rule's overriders to a manifest the caller owns; on failure it is half changed."""
    for field in OVERRIDER_ORDER[:-1]:
        for index, overrider in enumerate(_entries(overriders, field)):
            try:
                _APPLIERS[field](result, overrider)
            except (_OverriderFailure, InterpreterError) as error:
                raise OverrideError(f"{field}[{index}]: {error}") from error
    plaintext = _entries(overriders, "plaintext")
    if plaintext:
        try:
            _apply_plaintext(result, plaintext)
        except _OverriderFailure as error:
            raise OverrideError(f"plaintext: {error}") from error
