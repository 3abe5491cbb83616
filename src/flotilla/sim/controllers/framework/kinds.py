"""The kinds the simulated kube-controller-manager reads and writes, named once."""

from __future__ import annotations

from flotilla.api.scheme import GroupVersionKind

NAMESPACE = GroupVersionKind("", "v1", "Namespace")
NODE = GroupVersionKind("", "v1", "Node")
POD = GroupVersionKind("", "v1", "Pod")
SERVICE = GroupVersionKind("", "v1", "Service")
ENDPOINTS = GroupVersionKind("", "v1", "Endpoints")
SERVICE_ACCOUNT = GroupVersionKind("", "v1", "ServiceAccount")
CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")
EVENT = GroupVersionKind("", "v1", "Event")
PERSISTENT_VOLUME_CLAIM = GroupVersionKind("", "v1", "PersistentVolumeClaim")
RESOURCE_QUOTA = GroupVersionKind("", "v1", "ResourceQuota")
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
REPLICA_SET = GroupVersionKind("apps", "v1", "ReplicaSet")
STATEFUL_SET = GroupVersionKind("apps", "v1", "StatefulSet")
DAEMON_SET = GroupVersionKind("apps", "v1", "DaemonSet")
CONTROLLER_REVISION = GroupVersionKind("apps", "v1", "ControllerRevision")
JOB = GroupVersionKind("batch", "v1", "Job")
CRON_JOB = GroupVersionKind("batch", "v1", "CronJob")
HORIZONTAL_POD_AUTOSCALER = GroupVersionKind("autoscaling", "v2", "HorizontalPodAutoscaler")
ENDPOINT_SLICE = GroupVersionKind("discovery.k8s.io", "v1", "EndpointSlice")
