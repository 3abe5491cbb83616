"""Flotilla: a multi-cluster Kubernetes control plane with Karmada's API on a native Kubernetes hub."""

__version__ = "0.1.0"
