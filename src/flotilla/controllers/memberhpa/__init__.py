"""Member HPAs without the fight: a workload scaled by each member's own HorizontalPodAutoscaler.

A Deployment divided over members that each run an HPA has two owners of `spec.replicas`: the hub,
which renders every member's share into its Work and re-applies it whenever the template changes,
and the member's HPA, which scales its copy to its load. Without help they fight: each re-apply
puts the hub's share back and the HPA scales it away again. Karmada's answer is two controllers
(off by default there, on by default here) and one retain rule, which Flotilla keeps by name:

- `hpaScaleTargetMarker` (`marker`): an HPA propagated from the hub (it carries a propagation
  policy's permanent-id label) marks the workload it scales with the label
  `resourcetemplate.karmada.io/retain-replicas: "true"`; the mark goes when no propagated HPA
  scales that workload any more (`targets`, pure);
- the execution controller's retain step (`flotilla.interpreter.retain`) keeps the member's own
  `spec.replicas` when it applies a Work whose marked Deployment exists there;
- `deploymentReplicasSyncer` (`syncer`): the marked Deployment's template takes the sum of the
  members' replicas, read from its ResourceBinding's aggregated status once every target cluster
  reported a settled copy (`replicasum`, pure), so the hub shows what runs. The scheduler then
  divides that sum again, but the members keep what their HPAs chose, so nothing moves.

HPAs created in a member by hand, not propagated, are not followed (as in Karmada): the hub cannot
see them. Labelling the template with the retain label by hand gives the same result for them.
"""

from flotilla.controllers.memberhpa.marker import ScaleTargetMarkerController
from flotilla.controllers.memberhpa.syncer import ReplicasSyncerController

__all__ = ["ReplicasSyncerController", "ScaleTargetMarkerController"]
