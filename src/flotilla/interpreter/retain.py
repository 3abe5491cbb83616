"""Keep what the member cluster owns when Flotilla rewrites an object there.

The execution controller updates a member object with the manifest of its Work. Some fields of
that object were filled in by the member itself (an allocated cluster IP, the node a pod runs on,
the selector a Job controller generated) and are immutable or would be re-created endlessly if the
update cleared them. `retain(desired, observed)` is Karmada's Retain operation: it returns the
desired manifest with those member-owned values copied from the observed object.

Per kind, as Karmada keeps them:

- Service: `clusterIP`/`clusterIPs`, `healthCheckNodePort`, and the `nodePort` of each port the
  manifest leaves unset (ports matched by name, port and protocol);
- ServiceAccount: `secrets` and `imagePullSecrets` merged, the manifest's first;
- Secret of type `kubernetes.io/service-account-token`: the token `data` and the service account
  UID annotation the member's token controller wrote;
- Pod: `nodeName`, `serviceAccountName`, `volumes` and each container's `volumeMounts`;
- PersistentVolumeClaim: `volumeName`; PersistentVolume: `claimRef`;
- Job: `spec.selector.matchLabels` and the template labels (the generated `controller-uid`);
- Deployment labelled `resourcetemplate.karmada.io/retain-replicas: "true"`: `spec.replicas`, which
  an autoscaler in the member owns (the `hpaScaleTargetMarker` controller sets the label on the
  template of a workload a propagated HPA scales; a user may set it by hand for an HPA made in
  the member). As in Karmada's native interpreter, other kinds keep their replicas only through a
  Retain customization that reads the label.

Kinds without rules come back as a copy of the desired manifest.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from flotilla.interpreter import kinds
from flotilla.interpreter.kinds import GroupKind, InterpreterError

RETAIN_REPLICAS_LABEL = "resourcetemplate.karmada.io/retain-replicas"
SERVICE_ACCOUNT_UID_ANNOTATION = "kubernetes.io/service-account.uid"
SERVICE_ACCOUNT_TOKEN_TYPE = "kubernetes.io/service-account-token"  # noqa: S105 - a Secret type, not a password

Manifest = dict[str, Any]


def _section(obj: Manifest, name: str) -> dict[str, Any]:
    """The sub-object `name` of `obj`, created empty when missing."""
    value = obj.get(name)
    if not isinstance(value, dict):
        value = obj[name] = {}
    return value


def _retain_service(desired: Manifest, observed: Mapping[str, Any]) -> None:
    spec = _section(desired, "spec")
    observed_spec = kinds.nested_mapping(observed, "spec")
    health_check_node_port = observed_spec.get("healthCheckNodePort")
    if isinstance(health_check_node_port, int) and health_check_node_port > 0:
        spec["healthCheckNodePort"] = health_check_node_port
    cluster_ip = observed_spec.get("clusterIP")
    if isinstance(cluster_ip, str) and cluster_ip:
        spec["clusterIP"] = cluster_ip
        cluster_ips = observed_spec.get("clusterIPs")
        if isinstance(cluster_ips, list) and cluster_ips:
            spec["clusterIPs"] = list(cluster_ips)
    observed_node_ports = {
        _port_key(port): port["nodePort"]
        for port in kinds.nested_list(observed, "spec", "ports")
        if isinstance(port, Mapping) and port.get("nodePort")
    }
    for port in spec.get("ports") or []:
        if isinstance(port, dict) and not port.get("nodePort"):
            node_port = observed_node_ports.get(_port_key(port))
            if node_port is not None:
                port["nodePort"] = node_port


def _port_key(port: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    return (port.get("name") or "", port.get("port"), port.get("protocol") or "TCP")


def _retain_service_account(desired: Manifest, observed: Mapping[str, Any]) -> None:
    for field in ("secrets", "imagePullSecrets"):
        merged = [reference for reference in desired.get(field) or [] if isinstance(reference, Mapping)]
        names = {reference.get("name") for reference in merged}
        for reference in kinds.nested_list(observed, field):
            if isinstance(reference, Mapping) and reference.get("name") not in names:
                merged.append(copy.deepcopy(dict(reference)))
                names.add(reference.get("name"))
        if merged:
            desired[field] = merged


def _retain_service_account_token(desired: Manifest, observed: Mapping[str, Any]) -> None:
    if desired.get("type") != SERVICE_ACCOUNT_TOKEN_TYPE:
        return
    data = observed.get("data")
    if isinstance(data, Mapping) and data:
        desired["data"] = dict(data)
    uid = kinds.nested_mapping(observed, "metadata", "annotations").get(SERVICE_ACCOUNT_UID_ANNOTATION)
    if isinstance(uid, str) and uid:
        annotations = _section(_section(desired, "metadata"), "annotations")
        annotations[SERVICE_ACCOUNT_UID_ANNOTATION] = uid


def _retain_pod(desired: Manifest, observed: Mapping[str, Any]) -> None:
    spec = _section(desired, "spec")
    observed_spec = kinds.nested_mapping(observed, "spec")
    for field in ("nodeName", "serviceAccountName", "volumes"):
        if field in observed_spec:
            spec[field] = copy.deepcopy(observed_spec[field])
        else:
            spec.pop(field, None)
    for field in ("containers", "initContainers"):
        mounts = {
            container.get("name"): container.get("volumeMounts")
            for container in kinds.nested_list(observed, "spec", field)
            if isinstance(container, Mapping)
        }
        for container in spec.get(field) or []:
            if not isinstance(container, dict) or container.get("name") not in mounts:
                continue
            observed_mounts = mounts[container.get("name")]
            if observed_mounts is None:
                container.pop("volumeMounts", None)
            else:
                container["volumeMounts"] = copy.deepcopy(observed_mounts)


def _retain_persistent_volume_claim(desired: Manifest, observed: Mapping[str, Any]) -> None:
    volume_name = kinds.nested(observed, "spec", "volumeName")
    if isinstance(volume_name, str) and volume_name:
        _section(desired, "spec")["volumeName"] = volume_name


def _retain_persistent_volume(desired: Manifest, observed: Mapping[str, Any]) -> None:
    claim_ref = kinds.nested(observed, "spec", "claimRef")
    if isinstance(claim_ref, Mapping):
        _section(desired, "spec")["claimRef"] = copy.deepcopy(dict(claim_ref))


def _retain_job(desired: Manifest, observed: Mapping[str, Any]) -> None:
    match_labels = kinds.nested(observed, "spec", "selector", "matchLabels")
    if isinstance(match_labels, Mapping):
        selector = _section(_section(desired, "spec"), "selector")
        selector["matchLabels"] = dict(match_labels)
    template_labels = kinds.nested(observed, "spec", "template", "metadata", "labels")
    if isinstance(template_labels, Mapping):
        template_metadata = _section(_section(_section(desired, "spec"), "template"), "metadata")
        template_metadata["labels"] = dict(template_labels)


def _retain_replicas(desired: Manifest, observed: Mapping[str, Any]) -> None:
    labels = kinds.nested_mapping(desired, "metadata", "labels")
    if labels.get(RETAIN_REPLICAS_LABEL) != "true":
        return
    replicas = kinds.nested(observed, "spec", "replicas")
    if isinstance(replicas, bool) or not isinstance(replicas, int):
        raise InterpreterError(
            f"the member object has no spec.replicas to retain although {RETAIN_REPLICAS_LABEL} is set"
        )
    _section(desired, "spec")["replicas"] = replicas


_RETAINERS: Mapping[GroupKind, Callable[[Manifest, Mapping[str, Any]], None]] = {
    kinds.SERVICE: _retain_service,
    kinds.SERVICE_ACCOUNT: _retain_service_account,
    kinds.SECRET: _retain_service_account_token,
    kinds.POD: _retain_pod,
    kinds.PERSISTENT_VOLUME_CLAIM: _retain_persistent_volume_claim,
    kinds.PERSISTENT_VOLUME: _retain_persistent_volume,
    kinds.JOB: _retain_job,
    kinds.DEPLOYMENT: _retain_replicas,
}

RETAIN_KINDS = frozenset(_RETAINERS)
"""Kinds with member-owned fields to keep."""


def retain(desired: Mapping[str, Any], observed: Mapping[str, Any]) -> Manifest:
    """The desired manifest with the member-owned fields of the observed object kept."""
    retained = copy.deepcopy(dict(desired))
    retainer = _RETAINERS.get(kinds.group_kind(desired))
    if retainer is not None:
        retainer(retained, observed)
    return retained
