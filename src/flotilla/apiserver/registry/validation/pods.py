"""Validation of pods, pod specs and pod templates, with kube's rules for what a pod update may change.

`validate_pod_spec` is kube's `ValidatePodSpec`, shared by Pods and by the pod templates inside
workloads (`validate_pod_template`). A Pod's spec is nearly immutable once created: kube accepts
new images, a shorter `activeDeadlineSeconds`, added tolerations, removed scheduling gates and
little else, and says so in one Forbidden error; `validate_pod_update` applies the same rule.
"""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import (
    affinity,
    containers,
    fields,
    metadata,
    resources,
    scalars,
    tolerations,
    topologyspread,
    volumes,
)
from flotilla.apiserver.registry.validation.equality import normalized, semantic_equal

RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirst", "ClusterFirstWithHostNet", "Default", "None")
PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")
FS_GROUP_CHANGE_POLICIES = ("Always", "OnRootMismatch")
OPERATING_SYSTEMS = ("linux", "windows")
MAX_INT32 = 2147483647
MAX_DNS_NAMESERVERS = 3
MAX_DNS_SEARCH_PATHS = 32
MAX_DNS_SEARCH_LIST_CHARACTERS = 2048
POD_UPDATE_MESSAGE = (
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
    "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
    "(allow it to be set to 1 if it was previously negative)"
)


def validate_pod_spec(spec: dict[str, Any], path: str, *, is_pod: bool = False) -> list[FieldError]:
    """kube's `ValidatePodSpec`; `is_pod` is true for Pods and false for pod templates."""
    errors: list[FieldError] = []
    valid_volumes, volume_errors = volumes.validate_volumes(
        fields.objects(spec, "volumes"), fielderrors.child(path, "volumes")
    )
    errors.extend(volume_errors)
    regular = fields.objects(spec, "containers")
    errors.extend(_containers(regular, valid_volumes, fielderrors.child(path, "containers")))
    errors.extend(
        _init_containers(
            fields.objects(spec, "initContainers"),
            regular,
            valid_volumes,
            fielderrors.child(path, "initContainers"),
        )
    )
    errors.extend(_host_network(spec, path, is_pod=is_pod))
    errors.extend(
        _policy(
            fields.text(spec, "restartPolicy"), RESTART_POLICIES, fielderrors.child(path, "restartPolicy")
        )
    )
    errors.extend(_policy(fields.text(spec, "dnsPolicy"), DNS_POLICIES, fielderrors.child(path, "dnsPolicy")))
    errors.extend(
        metadata.validate_labels(
            fields.string_map(spec, "nodeSelector"), fielderrors.child(path, "nodeSelector")
        )
    )
    errors.extend(_pod_security_context(spec, path))
    errors.extend(
        affinity.validate_affinity(fields.mapping(spec, "affinity"), fielderrors.child(path, "affinity"))
    )
    errors.extend(_dns_config(spec, fielderrors.child(path, "dnsConfig")))
    for position, gate in enumerate(fields.objects(spec, "readinessGates")):
        gate_path = fielderrors.child(
            fielderrors.index(fielderrors.child(path, "readinessGates"), position), "conditionType"
        )
        errors.extend(metadata.qualified_name(fields.text(gate, "conditionType"), gate_path))
    errors.extend(
        topologyspread.validate_topology_spread_constraints(
            fields.objects(spec, "topologySpreadConstraints"),
            fielderrors.child(path, "topologySpreadConstraints"),
        )
    )
    for name in ("serviceAccountName", "nodeName", "priorityClassName", "runtimeClassName"):
        value = fields.text(spec, name)
        if value:
            errors.extend(
                fielderrors.invalid(fielderrors.child(path, name), value, message)
                for message in names.dns1123_subdomain_errors(value)
            )
    deadline = fields.integer(spec, "activeDeadlineSeconds")
    if deadline is not None and not 1 <= deadline <= MAX_INT32:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "activeDeadlineSeconds"),
                deadline,
                scalars.inclusive_range(1, MAX_INT32),
            )
        )
    for name in ("hostname", "subdomain"):
        value = fields.text(spec, name)
        if value:
            errors.extend(
                fielderrors.invalid(fielderrors.child(path, name), value, message)
                for message in names.dns1123_label_errors(value)
            )
    errors.extend(
        tolerations.validate_tolerations(
            fields.objects(spec, "tolerations"), fielderrors.child(path, "tolerations")
        )
    )
    errors.extend(_host_aliases(fields.objects(spec, "hostAliases"), fielderrors.child(path, "hostAliases")))
    preemption = spec.get("preemptionPolicy")
    if isinstance(preemption, str) and preemption not in PREEMPTION_POLICIES:
        errors.append(
            fielderrors.not_supported(
                fielderrors.child(path, "preemptionPolicy"), preemption, PREEMPTION_POLICIES
            )
        )
    if spec.get("overhead") is not None:
        _, overhead_errors = resources.resource_list(
            fields.mapping(spec, "overhead"), fielderrors.child(path, "overhead")
        )
        errors.extend(overhead_errors)
    if spec.get("os") is not None:
        os_name = fields.text(fields.mapping(spec, "os"), "name")
        os_path = fielderrors.child(fielderrors.child(path, "os"), "name")
        if not os_name:
            errors.append(fielderrors.required(os_path))
        elif os_name not in OPERATING_SYSTEMS:
            errors.append(fielderrors.not_supported(os_path, os_name, OPERATING_SYSTEMS))
    return errors


def _policy(value: str, supported: tuple[str, ...], path: str) -> list[FieldError]:
    if not value:
        return [fielderrors.required(path)]
    if value not in supported:
        return [fielderrors.not_supported(path, value, supported)]
    return []


def _containers(regular: list[dict[str, Any]], valid_volumes: set[str], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not regular:
        errors.append(fielderrors.required(path))
    seen: set[str] = set()
    for position, container in enumerate(regular):
        container_path = fielderrors.index(path, position)
        errors.extend(containers.validate_container_common(container, valid_volumes, container_path))
        name = fields.text(container, "name")
        if name in seen:
            errors.append(fielderrors.duplicate(fielderrors.child(container_path, "name"), name))
        seen.add(name)
        errors.extend(containers.validate_container_lifecycle_and_probes(container, container_path))
        if container.get("restartPolicy") is not None:
            errors.append(
                fielderrors.forbidden(
                    fielderrors.child(container_path, "restartPolicy"),
                    "may not be set for non-init containers",
                )
            )
    errors.extend(containers.host_port_conflicts(regular, path))
    return errors


def _init_containers(
    init: list[dict[str, Any]], regular: list[dict[str, Any]], valid_volumes: set[str], path: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    seen = {fields.text(container, "name") for container in regular}
    for position, container in enumerate(init):
        container_path = fielderrors.index(path, position)
        errors.extend(containers.validate_container_common(container, valid_volumes, container_path))
        restart_policy = container.get("restartPolicy")
        if isinstance(restart_policy, str) and restart_policy != "Always":
            errors.append(
                fielderrors.not_supported(
                    fielderrors.child(container_path, "restartPolicy"), restart_policy, ("Always",)
                )
            )
        name = fields.text(container, "name")
        if name in seen:
            errors.append(fielderrors.duplicate(fielderrors.child(container_path, "name"), name))
        elif name:
            seen.add(name)
        # kube checks each init container on its own (they run one at a time), always at index 0.
        errors.extend(containers.host_port_conflicts([container], path))
        if restart_policy == "Always":
            errors.extend(containers.validate_container_lifecycle_and_probes(container, container_path))
        else:
            errors.extend(containers.forbid_init_container_hooks(container, container_path))
        if fields.items(container, "resizePolicy"):
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(container_path, "resizePolicy"),
                    container["resizePolicy"],
                    "must not be set for init containers",
                )
            )
    return errors


def _host_network(spec: dict[str, Any], path: str, *, is_pod: bool) -> list[FieldError]:
    """With the host network, host ports must equal container ports (templates may leave them 0)."""
    if spec.get("hostNetwork") is not True:
        return []
    errors: list[FieldError] = []
    containers_path = fielderrors.child(path, "containers")
    for position, container in enumerate(fields.objects(spec, "containers")):
        ports_path = fielderrors.child(fielderrors.index(containers_path, position), "ports")
        for port_position, port in enumerate(fields.objects(container, "ports")):
            host_port = fields.integer(port, "hostPort") or 0
            if host_port != (fields.integer(port, "containerPort") or 0) and (is_pod or host_port != 0):
                errors.append(
                    fielderrors.invalid(
                        fielderrors.child(fielderrors.index(ports_path, port_position), "hostPort"),
                        host_port,
                        "must match `containerPort` when `hostNetwork` is true",
                    )
                )
    return errors


def _pod_security_context(spec: dict[str, Any], path: str) -> list[FieldError]:
    context = fields.mapping(spec, "securityContext")
    context_path = fielderrors.child(path, "securityContext")
    errors: list[FieldError] = []
    for name in ("runAsUser", "runAsGroup", "fsGroup"):
        value = fields.integer(context, name)
        if value is not None and not 0 <= value <= MAX_INT32:
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(context_path, name), value, scalars.inclusive_range(0, MAX_INT32)
                )
            )
    groups_path = fielderrors.child(context_path, "supplementalGroups")
    for position, group in enumerate(fields.items(context, "supplementalGroups")):
        if isinstance(group, int) and not 0 <= group <= MAX_INT32:
            errors.append(
                fielderrors.invalid(
                    fielderrors.index(groups_path, position), group, scalars.inclusive_range(0, MAX_INT32)
                )
            )
    policy = context.get("fsGroupChangePolicy")
    if isinstance(policy, str) and policy not in FS_GROUP_CHANGE_POLICIES:
        errors.append(
            fielderrors.not_supported(
                fielderrors.child(context_path, "fsGroupChangePolicy"), policy, FS_GROUP_CHANGE_POLICIES
            )
        )
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "shareProcessNamespace"),
                True,
                "ShareProcessNamespace and HostPID cannot both be enabled",
            )
        )
    return errors


def _dns_config(spec: dict[str, Any], path: str) -> list[FieldError]:
    config = spec.get("dnsConfig")
    if fields.text(spec, "dnsPolicy") == "None":
        if not isinstance(config, dict):
            return [fielderrors.required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not fields.items(config, "nameservers"):
            return [
                fielderrors.required(
                    fielderrors.child(path, "nameservers"),
                    "must provide at least one DNS nameserver when `dnsPolicy` is None",
                )
            ]
    if not isinstance(config, dict):
        return []
    errors: list[FieldError] = []
    nameservers = [server for server in fields.items(config, "nameservers") if isinstance(server, str)]
    nameservers_path = fielderrors.child(path, "nameservers")
    if len(nameservers) > MAX_DNS_NAMESERVERS:
        errors.append(
            fielderrors.invalid(
                nameservers_path, nameservers, f"must not have more than {MAX_DNS_NAMESERVERS} nameservers"
            )
        )
    for position, server in enumerate(nameservers):
        errors.extend(scalars.ip_errors(server, fielderrors.index(nameservers_path, position)))
    searches = [search for search in fields.items(config, "searches") if isinstance(search, str)]
    searches_path = fielderrors.child(path, "searches")
    if len(searches) > MAX_DNS_SEARCH_PATHS:
        errors.append(
            fielderrors.invalid(
                searches_path, searches, f"must not have more than {MAX_DNS_SEARCH_PATHS} search paths"
            )
        )
    if len(" ".join(searches)) > MAX_DNS_SEARCH_LIST_CHARACTERS:
        errors.append(
            fielderrors.invalid(
                searches_path,
                searches,
                f"must not have more than {MAX_DNS_SEARCH_LIST_CHARACTERS} characters "
                "(including spaces) in the search list",
            )
        )
    for position, search in enumerate(searches):
        trimmed = search.removesuffix(".")
        errors.extend(
            fielderrors.invalid(fielderrors.index(searches_path, position), trimmed, message)
            for message in names.dns1123_subdomain_errors(trimmed)
        )
    for position, option in enumerate(fields.objects(config, "options")):
        if not fields.text(option, "name"):
            errors.append(
                fielderrors.required(
                    fielderrors.index(fielderrors.child(path, "options"), position),
                    "Option.Name must not be empty",
                )
            )
    return errors


def _host_aliases(aliases: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, alias in enumerate(aliases):
        alias_path = fielderrors.index(path, position)
        errors.extend(scalars.ip_errors(fields.text(alias, "ip"), fielderrors.child(alias_path, "ip")))
        for hostname_position, hostname in enumerate(fields.items(alias, "hostnames")):
            if isinstance(hostname, str):
                errors.extend(
                    fielderrors.invalid(
                        fielderrors.index(fielderrors.child(alias_path, "hostnames"), hostname_position),
                        hostname,
                        message,
                    )
                    for message in names.dns1123_subdomain_errors(hostname)
                )
    return errors


def validate_pod_template(template: dict[str, Any], path: str) -> list[FieldError]:
    """kube's `ValidatePodTemplateSpec` (labels are reported at `<path>.labels`, as kube does)."""
    template_meta = fields.mapping(template, "metadata")
    errors = metadata.validate_labels(
        fields.string_map(template_meta, "labels"), fielderrors.child(path, "labels")
    )
    errors.extend(
        metadata.validate_annotations(
            fields.string_map(template_meta, "annotations"), fielderrors.child(path, "annotations")
        )
    )
    spec = fields.mapping(template, "spec")
    spec_path = fielderrors.child(path, "spec")
    errors.extend(validate_pod_spec(spec, spec_path))
    if fields.items(spec, "ephemeralContainers"):
        errors.append(
            fielderrors.forbidden(
                fielderrors.child(spec_path, "ephemeralContainers"),
                "ephemeral containers not allowed in pod template",
            )
        )
    return errors


def validate_pod(pod: dict[str, Any]) -> list[FieldError]:
    """kube's `ValidatePodCreate`."""
    errors = metadata.validate_object_meta(pod, namespaced=True)
    spec = fields.mapping(pod, "spec")
    errors.extend(validate_pod_spec(spec, "spec", is_pod=True))
    if fields.items(spec, "ephemeralContainers"):
        errors.append(fielderrors.forbidden("spec.ephemeralContainers", "cannot be set on create"))
    return errors


def validate_pod_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """kube's `ValidatePodUpdate`: only images, deadlines, tolerations and gates may change."""
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(metadata.validate_object_meta(new, namespaced=True))
    new_spec, old_spec = fields.mapping(new, "spec"), fields.mapping(old, "spec")
    errors.extend(validate_pod_spec(new_spec, "spec", is_pod=True))
    for name in ("containers", "initContainers"):
        new_containers, old_containers = fields.objects(new_spec, name), fields.objects(old_spec, name)
        list_path = fielderrors.child("spec", name)
        if len(new_containers) != len(old_containers):
            errors.append(fielderrors.forbidden(list_path, "pod updates may not add or remove containers"))
            return errors
        for position, container in enumerate(new_containers):
            image = fields.text(container, "image")
            if image != image.strip():
                errors.append(
                    fielderrors.invalid(
                        fielderrors.child(fielderrors.index(list_path, position), "image"),
                        image,
                        "must not have leading or trailing whitespace",
                    )
                )
    deadline_errors = _deadline_update(new_spec, old_spec)
    if deadline_errors:
        return errors + deadline_errors
    errors.extend(_tolerations_update(new_spec, old_spec))
    errors.extend(_scheduling_gates_update(new_spec, old_spec))
    if semantic_equal(new_spec, old_spec):
        return errors
    munged = _munged_spec(new_spec, old_spec)
    if not semantic_equal(munged, old_spec):
        difference = ", ".join(_changed_fields(munged, old_spec))
        errors.append(fielderrors.forbidden("spec", f"{POD_UPDATE_MESSAGE}\n  changed: {difference}"))
    return errors


def _deadline_update(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    path = "spec.activeDeadlineSeconds"
    new_deadline = fields.integer(new_spec, "activeDeadlineSeconds")
    old_deadline = fields.integer(old_spec, "activeDeadlineSeconds")
    if new_deadline is not None:
        if not 0 <= new_deadline <= MAX_INT32:
            return [fielderrors.invalid(path, new_deadline, scalars.inclusive_range(0, MAX_INT32))]
        if old_deadline is not None and old_deadline < new_deadline:
            return [fielderrors.invalid(path, new_deadline, "must be less than or equal to previous value")]
    elif old_deadline is not None:
        return [fielderrors.invalid(path, None, "must not update from a positive integer to nil value")]
    return []


def _tolerations_update(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    new_tolerations = fields.objects(new_spec, "tolerations")
    for old in fields.objects(old_spec, "tolerations"):
        if not any(_same_toleration(old, new) for new in new_tolerations):
            return [
                fielderrors.forbidden(
                    "spec.tolerations", "existing toleration can not be modified except its tolerationSeconds"
                )
            ]
    return []


def _same_toleration(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return semantic_equal({**old, "tolerationSeconds": None}, {**new, "tolerationSeconds": None})


def _scheduling_gates_update(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    old_gates = {fields.text(gate, "name") for gate in fields.objects(old_spec, "schedulingGates")}
    errors: list[FieldError] = []
    for position, gate in enumerate(fields.objects(new_spec, "schedulingGates")):
        name = fields.text(gate, "name")
        if name not in old_gates:
            errors.append(
                fielderrors.forbidden(
                    fielderrors.index("spec.schedulingGates", position),
                    f"only deletion is allowed, but found new scheduling gate '{name}'",
                )
            )
    return errors


def _munged_spec(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> dict[str, Any]:
    """The new spec with every field a pod update may change set back to its old value."""
    munged = copy.deepcopy(new_spec)
    for name in ("containers", "initContainers"):
        for container, old_container in zip(
            fields.objects(munged, name), fields.objects(old_spec, name), strict=False
        ):
            container["image"] = old_container.get("image")
    for name in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged[name] = copy.deepcopy(old_spec.get(name))
    old_grace = fields.integer(old_spec, "terminationGracePeriodSeconds")
    if (
        old_grace is not None
        and old_grace < 0
        and fields.integer(munged, "terminationGracePeriodSeconds") == 1
    ):
        munged["terminationGracePeriodSeconds"] = old_grace
    return munged


def _changed_fields(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> list[str]:
    new_reduced, old_reduced = normalized(new_spec), normalized(old_spec)
    return sorted(
        f"spec.{name}"
        for name in set(new_reduced) | set(old_reduced)
        if new_reduced.get(name) != old_reduced.get(name)
    )
