"""Request bodies as data: JSON, YAML (aliases bounded before they expand) and Kubernetes protobuf.

Below the HTTP edge because not only handlers read bodies: the writes read patches and apply
configurations, and admission reads webhook answers. `bodies.py` is the entry point.
"""
