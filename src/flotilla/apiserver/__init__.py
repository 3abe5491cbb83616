"""The Kubernetes-compatible API server: the only component that touches storage."""
