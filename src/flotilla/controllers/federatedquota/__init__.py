"""FederatedResourceQuota: a namespace's budget across member clusters, delivered and reported.

Karmada splits this over three controllers (sync, status, enforcement); here one reconciler per
quota does all three, since each pass reads the same objects: the static assignments become
ResourceQuotas of the quota's name and namespace in the assigned clusters, carried by Works like
any propagated object (`works`), removed when an assignment or the quota goes; the status
aggregates each member's ResourceQuota status as the work-status controller reflected it, and
`overallUsed` is what the namespace's ResourceBindings hold (`status`, over the arithmetic in
`flotilla.api.karmada.federatedquota`, which the hub's admission shares to refuse writes over
quota). On by default: a hub without FederatedResourceQuotas pays for three idle informers.
"""

from flotilla.controllers.federatedquota.controller import FederatedResourceQuotaController

__all__ = ["FederatedResourceQuotaController"]
