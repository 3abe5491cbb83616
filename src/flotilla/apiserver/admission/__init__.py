"""Admission: the steps every write passes through after defaulting and before storage.

Mutating admission may change the object (webhooks answer JSON patches); validating admission may
only refuse it. The write pipeline calls `Admission.mutate` and `Admission.validate` with the
request's `AdmissionAttributes`; refusals are API errors whose message reaches the user.
"""

from flotilla.apiserver.admission.attributes import Admission, AdmissionAttributes, NoAdmission

__all__ = ["Admission", "AdmissionAttributes", "NoAdmission"]
