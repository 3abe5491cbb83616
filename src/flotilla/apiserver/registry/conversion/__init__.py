"""Conversion of custom resources between the versions their CustomResourceDefinition serves.

A CRD may serve one kind at several versions while its objects are stored at one (the storage
version, or at whichever was the storage version when each was last written). A client asking for
any served version must get every object at that version: kube-apiserver converts on the way out
of storage and back to the storage version on the way in. This package says, per CRD, which
versions are served and how an object moves between them — kube's `nopConverter` for
`conversion: {strategy: None}` (only `apiVersion` changes), a built-in converter for the Karmada
kinds whose versions differ in shape (Karmada converts them in its webhook), and nothing for
`strategy: Webhook`, which this server does not call: such a CRD serves only its storage version and
says so in a condition. The conversion itself is pure; `store/conversion.py` applies it to objects
as requests read and write them.
"""
