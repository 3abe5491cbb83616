"""Karmada manifests as users write them and as Karmada's controllers produce them, for tests."""

from __future__ import annotations

import copy
from typing import Any

import yaml


def _load(text: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


def fresh(manifest: dict[str, Any]) -> dict[str, Any]:
    """A private copy to change."""
    return copy.deepcopy(manifest)


WALKTHROUGH_POLICY = _load(
    """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx-propagation}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinity: {clusterNames: [sz, fz]}
    replicaScheduling:
      replicaDivisionPreference: Weighted
      replicaSchedulingType: Divided
      weightPreference:
        staticWeightList:
        - {targetCluster: {clusterNames: [sz]}, weight: 1}
        - {targetCluster: {clusterNames: [fz]}, weight: 1}
"""
)

STATIC_WEIGHTS_POLICY = _load(
    """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: weighted, namespace: apps}
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    labelSelector:
      matchLabels: {tier: web}
      matchExpressions: [{key: env, operator: In, values: [prod, staging]}]
  placement:
    clusterAffinity:
      labelSelector: {matchLabels: {location: eu}}
      fieldSelector:
        matchExpressions:
        - {key: provider, operator: In, values: [aws]}
        - {key: region, operator: NotIn, values: [eu-west-3]}
      exclude: [member9]
    clusterTolerations:
    - {key: cluster.karmada.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - targetCluster: {clusterNames: [member1]}
          weight: 1
        - targetCluster: {labelSelector: {matchLabels: {size: large}}}
          weight: 3
  priority: 10
  preemption: Never
  conflictResolution: Overwrite
  propagateDeps: true
  failover:
    application:
      decisionConditions: {tolerationSeconds: 120}
      purgeMode: Gracefully
      gracePeriodSeconds: 600
      statePreservation:
        rules: [{aliasLabelName: app.example.com/checkpoint, jsonPath: "{.checkpoint}"}]
    cluster: {purgeMode: Directly}
  suspension:
    dispatchingOnClusters: {clusterNames: [member2]}
  preserveResourcesOnDeletion: true
  schedulePriority: {priorityClassSource: KubePriorityClass, priorityClassName: high}
"""
)

SPREAD_POLICY = _load(
    """
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: spread-by-region}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: web, name: frontend}]
  placement:
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: {dynamicWeight: AvailableReplicas}
    spreadConstraints:
    - {spreadByField: region, maxGroups: 2, minGroups: 2}
    - {spreadByField: cluster, maxGroups: 4, minGroups: 2}
"""
)

AFFINITIES_POLICY = _load(
    """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: tiers, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: inference}]
  placement:
    clusterAffinities:
    - affinityName: on-prem
      clusterNames: [idc1]
      overflowAffinities:
      - {affinityName: public-cloud, clusterNames: [cloud1, cloud2]}
    - affinityName: backup
      labelSelector: {matchLabels: {role: backup}}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Aggregated
"""
)

OVERRIDE_POLICY = _load(
    """
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: per-cluster, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  overrideRules:
  - targetCluster: {clusterNames: [sz]}
    overriders:
      imageOverrider:
      - {component: Registry, operator: replace, value: registry.sz.example.com}
      - predicate: {path: /spec/template/spec/initContainers/0/image}
        component: Tag
        operator: replace
        value: "1.27"
      plaintext:
      - {path: /spec/replicas, operator: replace, value: 3}
      - {path: /metadata/annotations/obsolete, operator: remove}
      commandOverrider:
      - {containerName: nginx, operator: add, value: [--zone=sz]}
      argsOverrider:
      - {containerName: nginx, operator: remove, value: [--debug]}
      labelsOverrider:
      - operator: add
        value: {cluster: sz}
      annotationsOverrider:
      - operator: replace
        value: {example.com/owner: team-a}
  - targetCluster: {labelSelector: {matchLabels: {env: test}}}
    overriders:
      fieldOverrider:
      - fieldPath: /data/db-config.yaml
        yaml:
        - {subPath: /db/host, operator: replace, value: test-db.example.com}
      - fieldPath: /data/settings.json
        json:
        - {subPath: /features/beta, operator: add, value: true}
"""
)

LEGACY_OVERRIDE_POLICY = _load(
    """
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterOverridePolicy
metadata: {name: legacy}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Namespace}]
  targetCluster: {clusterNames: [fz]}
  overriders:
    labelsOverrider:
    - operator: add
      value: {region: fz}
"""
)

RESOURCE_BINDING = _load(
    """
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata:
  name: nginx-deployment
  namespace: default
  labels:
    propagationpolicy.karmada.io/permanent-id: 4b0f2a31-d5f4-4a75-9a5e-5a0c87b7c6a1
    resourcebinding.karmada.io/permanent-id: 0c4a2bde-3f0e-4b1e-8e8f-6c2b1f8b9d11
  annotations:
    policy.karmada.io/applied-placement: '{"clusterAffinity":{"clusterNames":["sz","fz"]}}'
    propagationpolicy.karmada.io/name: nginx-propagation
    propagationpolicy.karmada.io/namespace: default
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: nginx, uid: 7e7c6c1c-2d0f-4f43-9d1c-7b3e0e6c4b3a,
     controller: true, blockOwnerDeletion: true}
spec:
  resource:
    apiVersion: apps/v1
    kind: Deployment
    namespace: default
    name: nginx
    uid: 7e7c6c1c-2d0f-4f43-9d1c-7b3e0e6c4b3a
    resourceVersion: "1042"
  replicas: 2
  replicaRequirements:
    resourceRequest: {cpu: 100m, memory: 128Mi}
    nodeClaim:
      nodeSelector: {disktype: ssd}
      tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}]
      hardNodeAffinity:
        nodeSelectorTerms:
        - matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
  clusters:
  - {name: sz, replicas: 1}
  - {name: fz, replicas: 1}
  placement:
    clusterAffinity: {clusterNames: [sz, fz]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}
  schedulerName: default-scheduler
  conflictResolution: Abort
  gracefulEvictionTasks:
  - {fromCluster: gz, reason: TaintUntolerated, producer: TaintManager, purgeMode: Gracefully,
     replicas: 1, gracePeriodSeconds: 600, creationTimestamp: "2026-11-01T10:00:00Z"}
status:
  schedulerObservedGeneration: 2
  schedulerObservingAffinityName: ""
  lastScheduledTime: "2026-11-01T10:00:01Z"
  conditions:
  - {type: Scheduled, status: "True", reason: Success, message: Binding has been scheduled successfully.,
     lastTransitionTime: "2026-11-01T10:00:01Z"}
  - {type: FullyApplied, status: "True", reason: FullyAppliedSuccess,
     message: All works have been successfully applied, lastTransitionTime: "2026-11-01T10:00:03Z"}
  aggregatedStatus:
  - clusterName: sz
    applied: true
    health: Healthy
    status: {replicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1}
  - clusterName: fz
    applied: false
    appliedMessage: 'deployments.apps "nginx" already exists'
    health: Unknown
"""
)

WORK = _load(
    """
apiVersion: work.karmada.io/v1alpha1
kind: Work
metadata:
  name: nginx-687f7fb96f
  namespace: karmada-es-sz
  finalizers: [karmada.io/execution-controller]
  labels: {work.karmada.io/permanent-id: 9d8e7f6a-1b2c-4d3e-8f9a-0b1c2d3e4f5a}
  annotations:
    resourcebinding.karmada.io/name: nginx-deployment
    resourcebinding.karmada.io/namespace: default
spec:
  workload:
    manifests:
    - apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: nginx
        namespace: default
        labels: {app: nginx}
      spec:
        replicas: 1
        selector: {matchLabels: {app: nginx}}
        template:
          metadata: {labels: {app: nginx}}
          spec:
            containers: [{name: nginx, image: nginx, ports: [{containerPort: 80}]}]
            volumes: [{name: cache, emptyDir: {}}]
status:
  conditions:
  - type: Applied
    status: "True"
    reason: AppliedSuccessful
    message: Manifest has been successfully applied
    lastTransitionTime: "2026-11-01T10:00:02Z"
  manifestStatuses:
  - identifier: {ordinal: 0, group: apps, version: v1, kind: Deployment, resource: deployments,
                 namespace: default, name: nginx}
    status: {replicas: 1, readyReplicas: 1}
    health: Healthy
"""
)

CLUSTER = _load(
    """
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: sz, labels: {location: cn}}
spec:
  id: 2f7f5a0e-8e47-4d5f-9b43-6d3a4f1e2c11
  syncMode: Push
  apiEndpoint: https://172.18.0.3:6443
  secretRef: {namespace: karmada-cluster, name: sz}
  impersonatorSecretRef: {namespace: karmada-cluster, name: sz-impersonator}
  insecureSkipTLSVerification: false
  proxyURL: socks5://proxy.example.com:1080
  proxyHeader: {Proxy-Authorization: "Basic dXNlcjpwYXNz"}
  provider: huaweicloud
  region: cn-south-1
  zones: [cn-south-1a, cn-south-1b]
  taints: [{key: cluster.karmada.io/not-ready, effect: NoSchedule}]
  resourceModels:
  - grade: 0
    ranges: [{name: cpu, min: "0", max: "4"}, {name: memory, min: "0", max: 16Gi}]
  - grade: 1
    ranges:
    - {name: cpu, min: "4", max: "9223372036854775807"}
    - {name: memory, min: 16Gi, max: "9223372036854775807"}
status:
  kubernetesVersion: v1.32.4
  apiEnablements:
  - groupVersion: apps/v1
    resources: [{name: deployments, kind: Deployment}, {name: statefulsets, kind: StatefulSet}]
  - groupVersion: v1
    resources: [{name: pods, kind: Pod}]
  conditions:
  - type: Ready
    status: "True"
    reason: ClusterReady
    message: cluster is healthy and ready to accept workloads
    lastTransitionTime: "2026-11-01T09:00:00Z"
  nodeSummary: {totalNum: 3, readyNum: 3}
  resourceSummary:
    allocatable: {cpu: "12", memory: 48Gi, pods: "330"}
    allocated: {cpu: 2500m, memory: 3Gi, pods: "14"}
    allocating: {cpu: 100m}
    allocatableModelings: [{grade: 0, count: 2}, {grade: 1, count: 1}]
"""
)

# Karmada's documented example (docs: "Cluster Taint Management"), with a target and removal.
CLUSTER_TAINT_POLICY = _load(
    """
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata: {name: detect-cluster-notready}
spec:
  targetClusters:
    clusterNames: [member1, member2]
    labelSelector: {matchLabels: {env: prod}}
  addOnConditions:
  - {conditionType: Ready, operator: NotIn, statusValues: ["True"]}
  - {conditionType: NetworkAvailable, operator: In, statusValues: ["False", "Unknown"]}
  removeOnConditions:
  - {conditionType: Ready, operator: In, statusValues: ["True"]}
  taints:
  - {key: cluster.karmada.io/not-ready, effect: NoSchedule}
  - {key: cluster.karmada.io/not-ready, effect: NoExecute, value: "true"}
"""
)

WORKLOAD_REBALANCER = _load(
    """
apiVersion: apps.karmada.io/v1alpha1
kind: WorkloadRebalancer
metadata: {name: demo, generation: 1, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  workloads:
  - {apiVersion: apps/v1, kind: Deployment, name: demo-deploy-1, namespace: default}
  - {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: demo-role}
  ttlSecondsAfterFinished: 60
status:
  observedGeneration: 1
  finishTime: "2026-01-01T00:00:01Z"
  observedWorkloads:
  - workload: {apiVersion: apps/v1, kind: Deployment, name: demo-deploy-1, namespace: default}
    result: Successful
  - workload: {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: demo-role}
    result: Failed
    reason: ReferencedBindingNotFound
"""
)
