"""cluster.karmada.io/v1alpha1 Cluster: a member cluster as the hub knows it.

The spec says how to reach the member (sync mode, API endpoint, credentials Secret, proxy) and how
to place work on it (provider, region, zones, taints, resource models for capacity grading). The
status is what the cluster controller last observed: Kubernetes version, enabled APIs, node and
resource summaries, and the Ready condition the scheduler's taints follow.
"""

from __future__ import annotations

from pydantic import Field

from flotilla.api.karmada import constants
from flotilla.api.karmada.model import (
    Condition,
    KarmadaModel,
    ObjectMeta,
    Quantity,
    ResourceList,
    Taint,
    find_condition,
    json_name,
)


class LocalSecretReference(KarmadaModel):
    namespace: str = ""
    name: str = ""


class ResourceModelRange(KarmadaModel):
    """One resource's interval `[min, max)` of a grade."""

    name: str = ""
    """`cpu`, `memory`, `storage` or `ephemeral-storage`."""
    min: Quantity = "0"
    max: Quantity = "0"


class ResourceModel(KarmadaModel):
    grade: int = 0
    ranges: list[ResourceModelRange] = Field(default_factory=list)


class ClusterSpec(KarmadaModel):
    id: str | None = None
    sync_mode: str = ""
    """`Push` or `Pull` (`constants.ClusterSyncMode`)."""
    api_endpoint: str | None = None
    secret_ref: LocalSecretReference | None = None
    """A Secret with keys `token` and `caBundle`."""
    impersonator_secret_ref: LocalSecretReference | None = None
    insecure_skip_tls_verification: bool | None = json_name("insecureSkipTLSVerification")
    proxy_url: str | None = json_name("proxyURL")
    proxy_header: dict[str, str] = Field(default_factory=dict)
    provider: str | None = None
    region: str | None = None
    zone: str | None = None
    """Deprecated: admission moves it into `zones`."""
    zones: list[str] = Field(default_factory=list)
    taints: list[Taint] = Field(default_factory=list)
    resource_models: list[ResourceModel] = Field(default_factory=list)


class APIResource(KarmadaModel):
    name: str = ""
    kind: str = ""


class APIEnablement(KarmadaModel):
    group_version: str = ""
    resources: list[APIResource] = Field(default_factory=list)


class NodeSummary(KarmadaModel):
    total_num: int | None = None
    ready_num: int | None = None


class AllocatableModeling(KarmadaModel):
    grade: int = 0
    count: int = 0


class ResourceSummary(KarmadaModel):
    allocatable: ResourceList = Field(default_factory=dict)
    allocating: ResourceList = Field(default_factory=dict)
    """Requests of pods waiting to be scheduled."""
    allocated: ResourceList = Field(default_factory=dict)
    """Requests of pods scheduled to nodes."""
    allocatable_modelings: list[AllocatableModeling] = Field(default_factory=list)


class ClusterStatus(KarmadaModel):
    kubernetes_version: str | None = None
    api_enablements: list[APIEnablement] = Field(default_factory=list)
    conditions: list[Condition] = Field(default_factory=list)
    node_summary: NodeSummary | None = None
    resource_summary: ResourceSummary | None = None
    remedy_actions: list[str] = Field(default_factory=list)


class Cluster(KarmadaModel):
    api_version: str = constants.CLUSTER.api_version
    kind: str = constants.CLUSTER.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: ClusterSpec = Field(default_factory=ClusterSpec)
    status: ClusterStatus = Field(default_factory=ClusterStatus)

    @property
    def ready(self) -> bool:
        """Whether the Ready condition is True."""
        condition = find_condition(self.status.conditions, constants.CLUSTER_CONDITION_READY)
        return condition is not None and condition.status == "True"
