"""The resource detector: matches resource templates to propagation policies and keeps their bindings.

`matching` chooses the policy of a template (Karmada's selector matching, priorities and
preemption), `claims` writes and clears a policy's claim on templates and bindings, `binding` builds
the ResourceBinding or ClusterResourceBinding, `watched` says which kinds and events count, and
`controller` is the `detector` controller that ties them to the hub.
"""

from flotilla.controllers.detector.controller import DetectorController

__all__ = ["DetectorController"]
