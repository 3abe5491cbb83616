"""The ReplicaSet controller: as many active pods as `spec.replicas`, and their counts in status."""
