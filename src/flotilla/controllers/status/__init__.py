"""Status back from the members (issue #5, step 6).

`workstatus` watches member objects (the shared `ControllerContext.member_informers`) and
reflects their status and health into `Work.status.manifestStatuses` (`manifeststatus`);
`bindingstatus` folds the Works of a binding into its `aggregatedStatus` and `FullyApplied`
condition (`aggregation`) and the template's own status.
"""
