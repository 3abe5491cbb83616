"""Validation of containers: names, images, ports, environment, mounts, probes and resources.

These are kube's `validateContainerCommon` and the per-field rules it calls (environment variables
live in `environment`), applied to the containers, init containers and ephemeral containers of every
pod spec (pods and the pod templates of workloads). The `volumes` argument names the pod's valid
volumes so mounts can be checked against them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import environment, fields, resources, scalars
from flotilla.apiserver.registry.validation.metadata import nonnegative

PROTOCOLS = ("SCTP", "TCP", "UDP")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
HTTP_SCHEMES = ("HTTP", "HTTPS")
MOUNT_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
_HANDLER_TYPES = ("exec", "httpGet", "tcpSocket", "grpc", "sleep")
_NOT_FOR_PLAIN_INIT = "may not be set for init containers without restartPolicy=Always"


def validate_container_common(
    container: dict[str, Any], volumes: Collection[str], path: str
) -> list[FieldError]:
    """kube's `validateContainerCommon`: what every kind of container must satisfy."""
    errors: list[FieldError] = []
    name = fields.text(container, "name")
    name_path = fielderrors.child(path, "name")
    if not name:
        errors.append(fielderrors.required(name_path))
    else:
        errors.extend(
            fielderrors.invalid(name_path, name, message) for message in names.dns1123_label_errors(name)
        )
    if not fields.text(container, "image"):
        errors.append(fielderrors.required(fielderrors.child(path, "image")))
    errors.extend(
        _enum(
            fields.text(container, "terminationMessagePolicy"),
            TERMINATION_MESSAGE_POLICIES,
            fielderrors.child(path, "terminationMessagePolicy"),
        )
    )
    errors.extend(
        validate_container_ports(fields.objects(container, "ports"), fielderrors.child(path, "ports"))
    )
    errors.extend(environment.validate_env(fields.objects(container, "env"), fielderrors.child(path, "env")))
    errors.extend(
        environment.validate_env_from(
            fields.objects(container, "envFrom"), fielderrors.child(path, "envFrom")
        )
    )
    errors.extend(
        validate_volume_mounts(
            fields.objects(container, "volumeMounts"), volumes, fielderrors.child(path, "volumeMounts")
        )
    )
    errors.extend(
        validate_volume_devices(
            fields.objects(container, "volumeDevices"),
            fields.objects(container, "volumeMounts"),
            volumes,
            fielderrors.child(path, "volumeDevices"),
        )
    )
    errors.extend(
        _enum(
            fields.text(container, "imagePullPolicy"),
            PULL_POLICIES,
            fielderrors.child(path, "imagePullPolicy"),
        )
    )
    errors.extend(
        resources.validate_resource_requirements(
            fields.mapping(container, "resources"), fielderrors.child(path, "resources")
        )
    )
    errors.extend(
        validate_security_context(
            fields.mapping(container, "securityContext"), fielderrors.child(path, "securityContext")
        )
    )
    return errors


def _enum(value: str, supported: tuple[str, ...], path: str) -> list[FieldError]:
    """A required enumerated string: Required when empty, NotSupported when unknown."""
    if not value:
        return [fielderrors.required(path)]
    if value not in supported:
        return [fielderrors.not_supported(path, value, supported)]
    return []


def validate_container_ports(ports: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, port in enumerate(ports):
        port_path = fielderrors.index(path, position)
        name = fields.text(port, "name")
        if name:
            problems = scalars.port_name_errors(name)
            errors.extend(
                fielderrors.invalid(fielderrors.child(port_path, "name"), name, p) for p in problems
            )
            if not problems and name in seen:
                errors.append(fielderrors.duplicate(fielderrors.child(port_path, "name"), name))
            seen.add(name)
        container_port = fields.integer(port, "containerPort") or 0
        container_port_path = fielderrors.child(port_path, "containerPort")
        if container_port == 0:
            errors.append(fielderrors.required(container_port_path))
        else:
            errors.extend(
                fielderrors.invalid(container_port_path, container_port, message)
                for message in scalars.port_number_errors(container_port)
            )
        host_port = fields.integer(port, "hostPort") or 0
        if host_port:
            errors.extend(
                fielderrors.invalid(fielderrors.child(port_path, "hostPort"), host_port, message)
                for message in scalars.port_number_errors(host_port)
            )
        errors.extend(
            _enum(fields.text(port, "protocol"), PROTOCOLS, fielderrors.child(port_path, "protocol"))
        )
    return errors


def host_port_conflicts(containers: list[dict[str, Any]], path: str) -> list[FieldError]:
    """Two ports may not claim the same protocol, host IP and host port (`checkHostPortConflicts`)."""
    errors: list[FieldError] = []
    claimed: set[str] = set()
    for position, container in enumerate(containers):
        ports_path = fielderrors.child(fielderrors.index(path, position), "ports")
        for port_position, port in enumerate(fields.objects(container, "ports")):
            host_port = fields.integer(port, "hostPort") or 0
            if not host_port:
                continue
            claim = f"{fields.text(port, 'protocol')}/{fields.text(port, 'hostIP')}/{host_port}"
            if claim in claimed:
                host_port_path = fielderrors.child(fielderrors.index(ports_path, port_position), "hostPort")
                errors.append(fielderrors.duplicate(host_port_path, claim))
            claimed.add(claim)
    return errors


def relative_path(target: str, path: str) -> list[FieldError]:
    """kube's `validateLocalDescendingPath`: relative and without `..` segments."""
    errors = []
    if posixpath.isabs(target):
        errors.append(fielderrors.invalid(path, target, "must be a relative path"))
    errors.extend(no_backsteps(target, path))
    return errors


def no_backsteps(target: str, path: str) -> list[FieldError]:
    if ".." in target.replace("\\", "/").split("/"):
        return [fielderrors.invalid(path, target, "must not contain '..'")]
    return []


def validate_volume_mounts(
    mounts: list[dict[str, Any]], volumes: Collection[str], path: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    mount_points: set[str] = set()
    for position, mount in enumerate(mounts):
        mount_path = fielderrors.index(path, position)
        name = fields.text(mount, "name")
        if not name:
            errors.append(fielderrors.required(fielderrors.child(mount_path, "name")))
        if name not in volumes:
            errors.append(fielderrors.not_found(fielderrors.child(mount_path, "name"), name))
        target = fields.text(mount, "mountPath")
        if not target:
            errors.append(fielderrors.required(fielderrors.child(mount_path, "mountPath")))
        if target in mount_points:
            errors.append(
                fielderrors.invalid(fielderrors.child(mount_path, "mountPath"), target, "must be unique")
            )
        mount_points.add(target)
        sub_path = fields.text(mount, "subPath")
        if sub_path:
            # kube reports sub-path problems at the list path, not the item's.
            errors.extend(relative_path(sub_path, fielderrors.child(path, "subPath")))
        sub_path_expression = fields.text(mount, "subPathExpr")
        if sub_path_expression:
            if sub_path:
                errors.append(
                    fielderrors.invalid(
                        fielderrors.child(mount_path, "subPathExpr"),
                        sub_path_expression,
                        "subPathExpr and subPath are mutually exclusive",
                    )
                )
            errors.extend(relative_path(sub_path_expression, fielderrors.child(path, "subPathExpr")))
        propagation = mount.get("mountPropagation")
        if isinstance(propagation, str) and propagation not in MOUNT_PROPAGATIONS:
            errors.append(
                fielderrors.not_supported(
                    fielderrors.child(path, "mountPropagation"), propagation, MOUNT_PROPAGATIONS
                )
            )
    return errors


def validate_volume_devices(
    devices: list[dict[str, Any]], mounts: list[dict[str, Any]], volumes: Collection[str], path: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    device_paths: set[str] = set()
    mounted = {fields.text(mount, "name") for mount in mounts}
    for position, device in enumerate(devices):
        device_path = fielderrors.index(path, position)
        name = fields.text(device, "name")
        target = fields.text(device, "devicePath")
        if not name:
            errors.append(fielderrors.required(fielderrors.child(device_path, "name")))
        if name not in volumes:
            errors.append(fielderrors.not_found(fielderrors.child(device_path, "name"), name))
        if not target:
            errors.append(fielderrors.required(fielderrors.child(device_path, "devicePath")))
        if target in device_paths:
            errors.append(
                fielderrors.invalid(fielderrors.child(device_path, "devicePath"), target, "must be unique")
            )
        device_paths.add(target)
        if name in mounted:
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(device_path, "name"), name, "must not already exist in volumeMounts"
                )
            )
    return errors


def validate_handler(handler: dict[str, Any], path: str) -> list[FieldError]:
    """Exactly one action of a probe or lifecycle hook (kube's `validateHandler`)."""
    errors: list[FieldError] = []
    count = 0
    for kind in _HANDLER_TYPES:
        if handler.get(kind) is None:
            continue
        kind_path = fielderrors.child(path, kind)
        if count:
            errors.append(fielderrors.forbidden(kind_path, "may not specify more than 1 handler type"))
            continue
        count += 1
        errors.extend(_action(kind, fields.mapping(handler, kind), kind_path))
    if count == 0:
        errors.append(fielderrors.required(path, "must specify a handler type"))
    return errors


def _action(kind: str, action: dict[str, Any], path: str) -> list[FieldError]:
    if kind == "exec":
        if not fields.items(action, "command"):
            return [fielderrors.required(fielderrors.child(path, "command"))]
        return []
    if kind == "httpGet":
        errors: list[FieldError] = []
        if not fields.text(action, "path"):
            errors.append(fielderrors.required(fielderrors.child(path, "path")))
        errors.extend(scalars.port_number_or_name(action.get("port"), fielderrors.child(path, "port")))
        scheme = fields.text(action, "scheme")
        if scheme not in HTTP_SCHEMES:
            errors.append(fielderrors.not_supported(fielderrors.child(path, "scheme"), scheme, HTTP_SCHEMES))
        return errors
    if kind == "tcpSocket":
        return scalars.port_number_or_name(action.get("port"), fielderrors.child(path, "port"))
    if kind == "grpc":
        port = fields.integer(action, "port") or 0
        return [
            fielderrors.invalid(fielderrors.child(path, "port"), port, message)
            for message in scalars.port_number_errors(port)
        ]
    seconds = fields.integer(action, "seconds") or 0
    return nonnegative(seconds, fielderrors.child(path, "seconds"))


def validate_probe(probe: dict[str, Any] | None, path: str, kind: str) -> list[FieldError]:
    """A liveness, readiness or startup probe; `kind` is `liveness`, `readiness` or `startup`."""
    if probe is None:
        return []
    errors = validate_handler(probe, path)
    for name in (
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    ):
        errors.extend(nonnegative(fields.integer(probe, name) or 0, fielderrors.child(path, name)))
    grace = fields.integer(probe, "terminationGracePeriodSeconds")
    grace_path = fielderrors.child(path, "terminationGracePeriodSeconds")
    if grace is not None and grace <= 0:
        errors.append(fielderrors.invalid(grace_path, grace, "must be greater than 0"))
    if kind == "readiness" and grace is not None:
        errors.append(fielderrors.invalid(grace_path, grace, "must not be set for readinessProbes"))
    success = fields.integer(probe, "successThreshold")
    if kind in ("liveness", "startup") and success is not None and success != 1:
        errors.append(fielderrors.invalid(fielderrors.child(path, "successThreshold"), success, "must be 1"))
    return errors


def validate_lifecycle(lifecycle: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        if lifecycle.get(hook) is not None:
            errors.extend(validate_handler(fields.mapping(lifecycle, hook), fielderrors.child(path, hook)))
    return errors


def validate_container_lifecycle_and_probes(container: dict[str, Any], path: str) -> list[FieldError]:
    """The fields only regular containers and restartable init containers may use."""
    errors: list[FieldError] = []
    if container.get("lifecycle") is not None:
        errors.extend(
            validate_lifecycle(fields.mapping(container, "lifecycle"), fielderrors.child(path, "lifecycle"))
        )
    for kind in ("liveness", "readiness", "startup"):
        name = f"{kind}Probe"
        probe = container.get(name)
        errors.extend(
            validate_probe(probe if isinstance(probe, dict) else None, fielderrors.child(path, name), kind)
        )
    return errors


def forbid_init_container_hooks(container: dict[str, Any], path: str) -> list[FieldError]:
    return [
        fielderrors.forbidden(fielderrors.child(path, name), _NOT_FOR_PLAIN_INIT)
        for name in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
        if container.get(name) is not None
    ]


def validate_security_context(context: dict[str, Any], path: str) -> list[FieldError]:
    """The ID ranges and the privilege contradiction of a container's `securityContext`."""
    errors: list[FieldError] = []
    for name in ("runAsUser", "runAsGroup"):
        value = fields.integer(context, name)
        if value is not None and not 0 <= value <= 2147483647:
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(path, name), value, scalars.inclusive_range(0, 2147483647)
                )
            )
    if context.get("privileged") is True and context.get("allowPrivilegeEscalation") is False:
        errors.append(
            fielderrors.invalid(
                path, context, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            )
        )
    return errors
