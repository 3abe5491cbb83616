"""The Kubernetes HPA algorithm, shared by the hub's FederatedHPA and the simulated members' HPA.

Pure code, no I/O and no clock (`now` is given): the replica calculator (`replicas`, kube's
`replica_calculator.go`), the metric specs that each propose a count and the one that wins
(`metricspecs`), the stabilization windows and scaling policies between a recommendation and a
new size (`behavior`), the conditions set as kube sets them (`conditions`), pods and
metrics.k8s.io `PodMetricsList`s decoded into what the calculator reads (`pods`), and one look at
one autoscaler, from its spec and its target's Scale to a size (`decision`). The hub's
`controllers.autoscaling` feeds it the union of a workload's pods over its members; the sim's
`sim.controllers.horizontalpodautoscaler` feeds it one simulated cluster's pods, as
kube-controller-manager's HPA controller does. Neither layer may import the other, so the
algorithm sits below both.
"""
