"""The web dashboard: see the fleet, where everything runs and why, and act on it from a browser.

Platform teams watch a fleet, not a terminal. `flotilla dashboard` is an HTTPS server that is one
more client of the hub, like the CLI: the browser signs in with a bearer token (a ServiceAccount
token), the dashboard keeps it server-side behind an HttpOnly session cookie, and every page's data
and every button's write reaches the hub as that user, so the hub's RBAC decides what is shown and
what succeeds. The dashboard holds no privileged credential of its own. Pages are static HTML, CSS
and vanilla JavaScript shipped in this package (no build step); they fetch small, already paged and
filtered JSON from `/api/…` (`api.py`, pure summaries in `fleet.py`, `workloads.py`, `timeline.py`)
and follow the hub's watches through one server-sent-event stream (`live.py`). Writes reuse the
CLI's own code paths (join, unjoin, cordon, taints, register tokens, `flotilla plan`) with the
user's token in place of the kubeconfig's credentials (`actions.py`). See docs/design/dashboard.md.
"""
