"""The one error a patch can raise: what is wrong with it, in words the user can act on.

Merging is pure, so it knows nothing of HTTP; the API server turns a `PatchError` into a
Kubernetes `Status` (400 or 422) with `message` as the text the user reads and `field` as the
cause's field path when there is one.
"""

from __future__ import annotations


class PatchError(ValueError):
    """A patch that cannot be applied; `str(error)` names the field and says what to change."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        """Where in the object the problem is (`spec.template.spec.containers[1]`); empty for the root."""
