"""Simulated member clusters: real API servers with simulated nodes, scheduler, kubelet and controllers.

kwok's model: each simulated cluster is a genuine Kubernetes API endpoint (our API server, its own
store, PKI and port); what a kubelet, kube-scheduler and kube-controller-manager would do is
simulated inside the same process through the in-process client, described as data where possible
(kubelet stages). Many clusters share one process and one event loop.
"""
