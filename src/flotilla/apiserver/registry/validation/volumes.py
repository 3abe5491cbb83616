"""Validation of a pod's `volumes`: unique DNS-label names and exactly one well-formed source each.

kube's `ValidateVolumes` returns the volumes that passed so container mounts can be checked against
them; `validate_volumes` does the same. The common sources (configMap, secret, emptyDir, hostPath,
persistentVolumeClaim, projected, downwardAPI, csi, ephemeral, nfs) get their specific checks; the
legacy in-tree cloud sources get their required fields checked.
"""

from __future__ import annotations

import posixpath
from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.api.quantities import ZERO
from flotilla.apiserver.registry.validation import containers, environment, fields, resources, storage

FILE_MODE_MESSAGE = "must be a number between 0 and 0777 (octal), both inclusive"
HOST_PATH_TYPES = (
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
)
VOLUME_FIELD_PATHS = (
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
)
# Every volume source in the order kube checks them, with the fields each one requires.
_SOURCES: dict[str, tuple[str, ...]] = {
    "emptyDir": (),
    "hostPath": (),
    "gitRepo": ("repository",),
    "gcePersistentDisk": ("pdName",),
    "awsElasticBlockStore": ("volumeID",),
    "secret": (),
    "nfs": (),
    "iscsi": ("targetPortal", "iqn"),
    "glusterfs": ("endpoints", "path"),
    "flocker": (),
    "persistentVolumeClaim": (),
    "rbd": ("monitors", "image"),
    "cinder": ("volumeID",),
    "cephfs": ("monitors",),
    "quobyte": ("registry", "volume"),
    "downwardAPI": (),
    "fc": (),
    "flexVolume": ("driver",),
    "configMap": (),
    "azureFile": ("secretName", "shareName"),
    "vsphereVolume": ("volumePath",),
    "photonPersistentDisk": ("pdID",),
    "portworxVolume": ("volumeID",),
    "azureDisk": ("diskName", "diskURI"),
    "storageos": ("volumeName",),
    "projected": (),
    "scaleIO": ("gateway", "system"),
    "csi": ("driver",),
    "ephemeral": (),
    "image": ("reference",),
}


def validate_volumes(volumes: list[dict[str, Any]], path: str) -> tuple[set[str], list[FieldError]]:
    """The names of the valid volumes, and what is wrong with the others."""
    valid: set[str] = set()
    seen: set[str] = set()
    errors: list[FieldError] = []
    for position, volume in enumerate(volumes):
        volume_path = fielderrors.index(path, position)
        name_path = fielderrors.child(volume_path, "name")
        problems = validate_volume_source(volume, volume_path)
        name = fields.text(volume, "name")
        if not name:
            problems.append(fielderrors.required(name_path))
        else:
            problems.extend(fielderrors.invalid(name_path, name, m) for m in names.dns1123_label_errors(name))
        if name in seen:
            problems.append(fielderrors.duplicate(name_path, name))
        seen.add(name)
        if problems:
            errors.extend(problems)
        else:
            valid.add(name)
    return valid, errors


def validate_volume_source(volume: dict[str, Any], path: str) -> list[FieldError]:
    """Exactly one source, and that source well formed (kube's `validateVolumeSource`)."""
    errors: list[FieldError] = []
    count = 0
    for source, required in _SOURCES.items():
        if volume.get(source) is None:
            continue
        source_path = fielderrors.child(path, source)
        if count:
            errors.append(fielderrors.forbidden(source_path, "may not specify more than 1 volume type"))
            continue
        count += 1
        settings = fields.mapping(volume, source)
        errors.extend(
            fielderrors.required(fielderrors.child(source_path, name))
            for name in required
            if not settings.get(name)
        )
        checker = _CHECKERS.get(source)
        if checker is not None:
            errors.extend(checker(settings, source_path))
    if count == 0:
        errors.append(fielderrors.required(path, "must specify a volume type"))
    return errors


def _mode(value: Any, path: str) -> list[FieldError]:
    if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= 0o777:
        return [fielderrors.invalid(path, value, FILE_MODE_MESSAGE)]
    return []


def _non_reserved_path(target: str, path: str) -> list[FieldError]:
    errors = containers.relative_path(target, path)
    if target.startswith(".."):
        errors.append(fielderrors.invalid(path, target, "must not start with '..'"))
    return errors


def _key_to_paths(entries: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, entry in enumerate(entries):
        entry_path = fielderrors.index(path, position)
        if not fields.text(entry, "key"):
            errors.append(fielderrors.required(fielderrors.child(entry_path, "key")))
        target = fields.text(entry, "path")
        if not target:
            errors.append(fielderrors.required(fielderrors.child(entry_path, "path")))
        errors.extend(_non_reserved_path(target, fielderrors.child(entry_path, "path")))
        errors.extend(_mode(entry.get("mode"), fielderrors.child(entry_path, "mode")))
    return errors


def _secret(source: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not fields.text(source, "secretName"):
        errors.append(fielderrors.required(fielderrors.child(path, "secretName")))
    errors.extend(_mode(source.get("defaultMode"), fielderrors.child(path, "defaultMode")))
    errors.extend(_key_to_paths(fields.objects(source, "items"), fielderrors.child(path, "items")))
    return errors


def _config_map(source: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not fields.text(source, "name"):
        errors.append(fielderrors.required(fielderrors.child(path, "name")))
    errors.extend(_mode(source.get("defaultMode"), fielderrors.child(path, "defaultMode")))
    errors.extend(_key_to_paths(fields.objects(source, "items"), fielderrors.child(path, "items")))
    return errors


def _host_path(source: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    target = fields.text(source, "path")
    if not target:
        errors.append(fielderrors.required(fielderrors.child(path, "path")))
        return errors
    errors.extend(containers.no_backsteps(target, fielderrors.child(path, "path")))
    kind = source.get("type")
    if isinstance(kind, str) and kind not in HOST_PATH_TYPES:
        errors.append(fielderrors.not_supported(fielderrors.child(path, "type"), kind, HOST_PATH_TYPES))
    return errors


def _empty_dir(source: dict[str, Any], path: str) -> list[FieldError]:
    if source.get("sizeLimit") is None:
        return []
    errors: list[FieldError] = []
    limit_path = fielderrors.child(path, "sizeLimit")
    limit = resources.parsed(source["sizeLimit"], limit_path, errors)
    if limit is not None and limit < ZERO:
        errors.append(fielderrors.forbidden(limit_path, "SizeLimit field must be a valid resource quantity"))
    return errors


def _claim(source: dict[str, Any], path: str) -> list[FieldError]:
    if not fields.text(source, "claimName"):
        return [fielderrors.required(fielderrors.child(path, "claimName"))]
    return []


def _nfs(source: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not fields.text(source, "server"):
        errors.append(fielderrors.required(fielderrors.child(path, "server")))
    target = fields.text(source, "path")
    if not target:
        errors.append(fielderrors.required(fielderrors.child(path, "path")))
    elif not posixpath.isabs(target):
        errors.append(
            fielderrors.invalid(fielderrors.child(path, "path"), target, "must be an absolute path")
        )
    return errors


def _downward_api_items(entries: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, entry in enumerate(entries):
        entry_path = fielderrors.index(path, position)
        target = fields.text(entry, "path")
        if not target:
            errors.append(fielderrors.required(fielderrors.child(entry_path, "path")))
        errors.extend(_non_reserved_path(target, fielderrors.child(entry_path, "path")))
        has_field = entry.get("fieldRef") is not None
        has_resource = entry.get("resourceFieldRef") is not None
        if has_field:
            errors.extend(
                environment.object_field_selector(
                    fields.mapping(entry, "fieldRef"),
                    VOLUME_FIELD_PATHS,
                    fielderrors.child(entry_path, "fieldRef"),
                )
            )
        if has_resource:
            errors.extend(
                environment.resource_field_selector(
                    fields.mapping(entry, "resourceFieldRef"),
                    fielderrors.child(entry_path, "resourceFieldRef"),
                    volume=True,
                )
            )
        if has_field and has_resource:
            errors.append(
                fielderrors.invalid(
                    entry_path,
                    "resource",
                    "fieldRef and resourceFieldRef can not be specified simultaneously",
                )
            )
        errors.extend(_mode(entry.get("mode"), fielderrors.child(entry_path, "mode")))
    return errors


def _downward_api(source: dict[str, Any], path: str) -> list[FieldError]:
    errors = _mode(source.get("defaultMode"), fielderrors.child(path, "defaultMode"))
    errors.extend(_downward_api_items(fields.objects(source, "items"), fielderrors.child(path, "items")))
    return errors


_PROJECTIONS = ("secret", "configMap", "downwardAPI", "serviceAccountToken", "clusterTrustBundle")


def _projected(source: dict[str, Any], path: str) -> list[FieldError]:
    errors = _mode(source.get("defaultMode"), fielderrors.child(path, "defaultMode"))
    sources_path = fielderrors.child(path, "sources")
    for position, projection in enumerate(fields.objects(source, "sources")):
        projection_path = fielderrors.index(sources_path, position)
        present = [kind for kind in _PROJECTIONS if projection.get(kind) is not None]
        errors.extend(
            fielderrors.forbidden(
                fielderrors.child(projection_path, kind), "may not specify more than 1 volume type per source"
            )
            for kind in present[1:]
        )
        for kind in present[:1]:
            settings = fields.mapping(projection, kind)
            kind_path = fielderrors.child(projection_path, kind)
            if kind in ("secret", "configMap"):
                errors.extend(
                    _key_to_paths(fields.objects(settings, "items"), fielderrors.child(kind_path, "items"))
                )
            elif kind == "downwardAPI":
                errors.extend(
                    _downward_api_items(
                        fields.objects(settings, "items"), fielderrors.child(kind_path, "items")
                    )
                )
            elif kind == "serviceAccountToken":
                errors.extend(_token_projection(settings, kind_path))
    return errors


def _token_projection(settings: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    expiration = fields.integer(settings, "expirationSeconds")
    expiration_path = fielderrors.child(path, "expirationSeconds")
    if expiration is not None and expiration < 600:
        errors.append(
            fielderrors.invalid(
                expiration_path, expiration, "may not specify a duration less than 10 minutes"
            )
        )
    if expiration is not None and expiration > 2**32:
        errors.append(
            fielderrors.invalid(
                expiration_path, expiration, "may not specify a duration larger than 2^32 seconds"
            )
        )
    if not fields.text(settings, "path"):
        errors.append(fielderrors.required(fielderrors.child(path, "path")))
    return errors


def _ephemeral(source: dict[str, Any], path: str) -> list[FieldError]:
    template_path = fielderrors.child(path, "volumeClaimTemplate")
    if source.get("volumeClaimTemplate") is None:
        return [fielderrors.required(template_path)]
    template = fields.mapping(source, "volumeClaimTemplate")
    return storage.validate_claim_spec(
        fields.mapping(template, "spec"), fielderrors.child(template_path, "spec")
    )


_CHECKERS = {
    "secret": _secret,
    "configMap": _config_map,
    "hostPath": _host_path,
    "emptyDir": _empty_dir,
    "persistentVolumeClaim": _claim,
    "nfs": _nfs,
    "downwardAPI": _downward_api,
    "projected": _projected,
    "ephemeral": _ephemeral,
}
