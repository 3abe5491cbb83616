"""Defaults of pod specs, for Pods and for every pod template inside a workload.

kube-apiserver fills these in on every write (`SetDefaults_PodSpec`, `SetDefaults_Container`, the
volume and probe defaulters of core/v1), and users see them in `kubectl get -o yaml`:
`restartPolicy: Always`, `dnsPolicy: ClusterFirst`, `terminationGracePeriodSeconds: 30`,
`schedulerName: default-scheduler`, `securityContext: {}`, per container `imagePullPolicy`,
`terminationMessagePath`/`Policy`, port protocols, probe timings, volume file modes. Pods (not
templates) additionally get `enableServiceLinks: true`, requests copied from limits and, on the host
network, host ports equal to container ports.

Quantities in resource lists are rounded up to thousandths and written canonically (`0.5` → `500m`),
as kube stores them.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from flotilla.api.quantities import QuantityError, parse_quantity
from flotilla.apiserver.registry.validation import fields

DEFAULT_TERMINATION_GRACE_PERIOD = 30
DEFAULT_SCHEDULER = "default-scheduler"
TERMINATION_MESSAGE_PATH = "/dev/termination-log"
DEFAULT_FILE_MODE = 0o644  # 420, what kubectl shows for secret, configMap and projected volumes
TOKEN_EXPIRATION_SECONDS = 3600
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*"
_DOMAIN_COMPONENT = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_IMAGE_REFERENCE = re.compile(
    rf"(?:(?P<domain>{_DOMAIN})/)?(?P<path>{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*)"
    rf"(?::(?P<tag>[\w][\w.-]{{0,127}}))?(?:@(?P<digest>{_DIGEST}))?\Z"
)


def image_pull_policy(image: str) -> str:
    """`Always` for `:latest` or untagged images (without a digest), `IfNotPresent` otherwise.

    Like kube's `parsers.ParseImageName`, an image reference that does not parse gets `IfNotPresent`.
    """
    match = _IMAGE_REFERENCE.match(image)
    if match is None:
        return "IfNotPresent"
    tag = match.group("tag")
    if tag == "latest" or (tag is None and match.group("digest") is None):
        return "Always"
    return "IfNotPresent"


def canonical_resource_list(resources: Any) -> None:
    """Round a resource list's quantities up to thousandths and write them canonically, in place."""
    if not isinstance(resources, dict):
        return
    for name, value in resources.items():
        try:
            resources[name] = str(parse_quantity(value).rounded_up_to_milli())
        except QuantityError:
            continue  # validation reports it


def _http_get(action: Any) -> None:
    if isinstance(action, dict):
        if not action.get("path"):
            action["path"] = "/"
        if not action.get("scheme"):
            action["scheme"] = "HTTP"


def _probe(probe: Any) -> None:
    if not isinstance(probe, dict):
        return
    timings = (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3))
    for name, default in timings:
        if not probe.get(name):
            probe[name] = default
    _http_get(probe.get("httpGet"))
    grpc = probe.get("grpc")
    if isinstance(grpc, dict) and grpc.get("service") is None:
        grpc["service"] = ""


def _field_ref(selector: Any) -> None:
    if isinstance(selector, dict) and not selector.get("apiVersion"):
        selector["apiVersion"] = "v1"


def default_container(container: dict[str, Any]) -> None:
    if not container.get("imagePullPolicy"):
        container["imagePullPolicy"] = image_pull_policy(fields.text(container, "image"))
    if not container.get("terminationMessagePath"):
        container["terminationMessagePath"] = TERMINATION_MESSAGE_PATH
    if not container.get("terminationMessagePolicy"):
        container["terminationMessagePolicy"] = "File"
    for port in fields.objects(container, "ports"):
        if not port.get("protocol"):
            port["protocol"] = "TCP"
    for variable in fields.objects(container, "env"):
        _field_ref(fields.mapping(variable, "valueFrom").get("fieldRef"))
    # kube always writes a container's `resources` (a Go struct), so clients see `resources: {}`.
    resources = fields.ensure_mapping(container, "resources")
    canonical_resource_list(resources.get("limits"))
    canonical_resource_list(resources.get("requests"))
    for name in ("livenessProbe", "readinessProbe", "startupProbe"):
        _probe(container.get(name))
    lifecycle = fields.mapping(container, "lifecycle")
    for hook in ("postStart", "preStop"):
        _http_get(fields.mapping(lifecycle, hook).get("httpGet"))


def _mode(source: Any) -> None:
    if isinstance(source, dict) and source.get("defaultMode") is None:
        source["defaultMode"] = DEFAULT_FILE_MODE


def _downward_api_items(source: dict[str, Any]) -> None:
    for item in fields.objects(source, "items"):
        _field_ref(item.get("fieldRef"))


_VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs",
    "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker",
    "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral",
    "image",
)  # fmt: skip


def default_volume(volume: dict[str, Any]) -> None:
    """kube's volume defaulters; a volume without any source becomes an `emptyDir`."""
    if not any(volume.get(source) is not None for source in _VOLUME_SOURCES):
        volume["emptyDir"] = {}
    host_path = volume.get("hostPath")
    if isinstance(host_path, dict) and host_path.get("type") is None:
        host_path["type"] = ""
    for name in ("secret", "configMap"):
        _mode(volume.get(name))
    downward_api = volume.get("downwardAPI")
    if isinstance(downward_api, dict):
        _mode(downward_api)
        _downward_api_items(downward_api)
    projected = volume.get("projected")
    if isinstance(projected, dict):
        _mode(projected)
        for projection in fields.objects(projected, "sources"):
            downward = projection.get("downwardAPI")
            if isinstance(downward, dict):
                _downward_api_items(downward)
            token = projection.get("serviceAccountToken")
            if isinstance(token, dict) and token.get("expirationSeconds") is None:
                token["expirationSeconds"] = TOKEN_EXPIRATION_SECONDS
    _legacy_volume_defaults(volume)
    ephemeral = volume.get("ephemeral")
    if isinstance(ephemeral, dict) and isinstance(ephemeral.get("volumeClaimTemplate"), dict):
        claim_spec = fields.ensure_mapping(ephemeral["volumeClaimTemplate"], "spec")
        default_claim_spec(claim_spec)


def _legacy_volume_defaults(volume: dict[str, Any]) -> None:
    """The in-tree plugin defaults kube still applies (iSCSI, RBD, Azure disk, ScaleIO)."""
    for name, defaults in (
        ("iscsi", {"iscsiInterface": "default"}),
        ("rbd", {"pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"}),
        ("azureDisk", {"cachingMode": "ReadWrite", "fsType": "ext4", "readOnly": False, "kind": "Shared"}),
        ("scaleIO", {"storageMode": "ThinProvisioned", "fsType": "xfs"}),
    ):
        source = volume.get(name)
        if isinstance(source, dict):
            for key, value in defaults.items():
                if source.get(key) in (None, ""):
                    source[key] = value


def default_claim_spec(spec: dict[str, Any]) -> None:
    """A PersistentVolumeClaim spec: `volumeMode: Filesystem` and canonical quantities."""
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    resources = fields.mapping(spec, "resources")
    canonical_resource_list(resources.get("limits"))
    canonical_resource_list(resources.get("requests"))


def default_pod_spec(spec: dict[str, Any]) -> None:
    """kube's `SetDefaults_PodSpec` and everything nested in a pod spec."""
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = DEFAULT_TERMINATION_GRACE_PERIOD
    if not spec.get("schedulerName"):
        spec["schedulerName"] = DEFAULT_SCHEDULER
    # core/v1 keeps the deprecated `serviceAccount` as an alias of `serviceAccountName`.
    account = fields.text(spec, "serviceAccountName") or fields.text(spec, "serviceAccount")
    if account:
        spec["serviceAccountName"] = account
        spec["serviceAccount"] = account
    for volume in fields.objects(spec, "volumes"):
        default_volume(volume)
    for list_name in _CONTAINER_LISTS:
        for container in fields.objects(spec, list_name):
            default_container(container)
    canonical_resource_list(spec.get("overhead"))


def default_pod_template(owner: dict[str, Any], name: str = "template") -> None:
    """The pod template at `owner[name]`, created if absent as kube's Go structs always have one."""
    template = fields.ensure_mapping(owner, name)
    default_pod_spec(fields.ensure_mapping(template, "spec"))


def _requests_from_limits(container: dict[str, Any]) -> None:
    resources = fields.mapping(container, "resources")
    limits = resources.get("limits")
    if not isinstance(limits, dict) or not limits:
        return
    requests = fields.ensure_mapping(resources, "requests")
    for name, value in limits.items():
        requests.setdefault(name, value)


def default_pod(pod: dict[str, Any]) -> None:
    """kube's `SetDefaults_Pod` followed by the pod spec defaults."""
    spec = fields.ensure_mapping(pod, "spec")
    for list_name in ("containers", "initContainers"):
        for container in fields.objects(spec, list_name):
            _requests_from_limits(container)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    if spec.get("hostNetwork") is True:
        for list_name in ("containers", "initContainers"):
            for container in fields.objects(spec, list_name):
                for port in fields.objects(container, "ports"):
                    if not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort", 0)
    default_pod_spec(spec)


def qos_class(spec: dict[str, Any]) -> str:
    """The pod's quality-of-service class (kube's `ComputePodQOS`), from container cpu and memory."""
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for container in fields.objects(spec, "containers") + fields.objects(spec, "initContainers"):
        resources = fields.mapping(container, "resources")
        for section, totals in (("requests", requests), ("limits", limits)):
            found = set()
            for name, value in fields.mapping(resources, section).items():
                if name not in ("cpu", "memory"):
                    continue
                try:
                    amount = parse_quantity(value).amount
                except QuantityError:
                    continue
                if amount > 0:
                    found.add(name)
                    totals[name] = totals.get(name, Fraction(0)) + amount
            if section == "limits" and found != {"cpu", "memory"}:
                guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    matched = all(limits.get(name) == amount for name, amount in requests.items())
    if guaranteed and matched and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"
