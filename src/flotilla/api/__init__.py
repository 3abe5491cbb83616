"""Kubernetes and Karmada API vocabulary as pure data: kinds, resources, selectors. No I/O here."""
