"""Structural schemas of every served kind: built-ins from kubernetes-validate, custom resources from CRDs."""
