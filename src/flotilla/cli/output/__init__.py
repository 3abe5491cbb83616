"""What the verbs print, laid out as kubectl and karmadactl lay it out.

`printers` renders the servers' Tables and whole objects for `get`; `descriptions` and
`karmadadescriptions` are `describe`'s text for any object and for the Karmada kinds; `tabwriter`
aligns columns as Go's `text/tabwriter`; `names` spells objects as kubectl's name printer does
(`deployment.apps/nginx`); `kubectlerrors` reports failures in kubectl's words. Pure
functions of data the verbs already read: nothing here talks to a server.
"""
