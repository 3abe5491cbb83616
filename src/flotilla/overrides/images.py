"""Container image references split into the parts an image overrider edits.

An imageOverrider rewrites one component of `[registry/]repository[:tag|@digest]`: the registry
(`registry.k8s.io`, `fictional.registry.example:10443`), the repository (`karmada/nginx`), or the
tag-or-digest. References are parsed with the grammar of the distribution project's `reference`
package, as Karmada does, so what it refuses is refused here with the same words (`invalid
reference format`, `repository name must be lowercase`). The name is not normalised: `nginx` has
no registry and stays `nginx`, it does not become `docker.io/library/nginx`.

The first path component is the registry when it looks like a host: it contains a `.` or a `:`, or
it is `localhost`. When a reference carries both a tag and a digest both are kept (Karmada drops
the digest there, which silently changes the image); the tag component then means the tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = rf"{_ALPHANUMERIC}(?:{_SEPARATOR}{_ALPHANUMERIC})*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])"
_DOMAIN = rf"{_HOST}(?::[0-9]+)?"
_NAME = rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
TAG_PATTERN = re.compile(r"\w[\w.-]{0,127}", re.ASCII)
DIGEST_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}")
_REFERENCE = re.compile(rf"({_NAME})(?::({TAG_PATTERN.pattern}))?(?:@({DIGEST_PATTERN.pattern}))?", re.ASCII)
_NAME_MAX_LENGTH = 255
_DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}


class ImageReferenceError(ValueError):
    """A string that is not an image reference; the message is the distribution project's."""


@dataclass(frozen=True, slots=True)
class ImageReference:
    """An image reference in parts; `str()` puts it back together."""

    registry: str
    repository: str
    tag: str = ""
    digest: str = ""

    @property
    def full_repository(self) -> str:
        return f"{self.registry}/{self.repository}" if self.registry else self.repository

    @property
    def tag_or_digest(self) -> str:
        return self.tag or self.digest

    def with_tag_or_digest(self, value: str) -> ImageReference:
        """The reference with `value` as its tag (a tag replaces any digest) or its digest.

        A value that is neither a valid tag nor a valid digest leaves the reference unchanged, as in
        Karmada; a digest may be written with its `@`.
        """
        if TAG_PATTERN.fullmatch(value):
            return replace(self, tag=value, digest="")
        digest = value.removeprefix("@")
        if DIGEST_PATTERN.fullmatch(digest):
            return replace(self, tag="", digest=digest)
        return self

    def without_tag_or_digest(self) -> ImageReference:
        """The reference without its tag, or without its digest when it has no tag."""
        return replace(self, tag="") if self.tag else replace(self, digest="")

    def __str__(self) -> str:
        text = self.full_repository
        if self.tag:
            text += f":{self.tag}"
        if self.digest:
            text += f"@{self.digest}"
        return text


def split_registry(name: str) -> tuple[str, str]:
    """A repository name split into registry and path: `("registry.k8s.io", "pause")`, `("", "nginx")`."""
    first, slash, rest = name.partition("/")
    if not slash or (not any(mark in first for mark in ".:") and first != "localhost"):
        return "", name
    return first, rest


def _check_digest(digest: str) -> None:
    algorithm, _, encoded = digest.partition(":")
    length = _DIGEST_LENGTHS.get(algorithm)
    if length is None:
        raise ImageReferenceError("unsupported digest algorithm")
    if len(encoded) != length:
        raise ImageReferenceError("invalid checksum digest length")
    if encoded != encoded.lower():
        raise ImageReferenceError("invalid checksum digest format")


def parse_image(image: str) -> ImageReference:
    """The parts of an image reference such as `registry.example:5000/team/app:1.2@sha256:…`."""
    if not image:
        raise ImageReferenceError("repository name must have at least one component")
    match = _REFERENCE.fullmatch(image)
    if match is None:
        if _REFERENCE.fullmatch(image.lower()):
            raise ImageReferenceError("repository name must be lowercase")
        raise ImageReferenceError("invalid reference format")
    name, tag, digest = match.group(1), match.group(2) or "", match.group(3) or ""
    if len(name) > _NAME_MAX_LENGTH:
        raise ImageReferenceError(f"repository name must not be more than {_NAME_MAX_LENGTH} characters")
    if digest:
        _check_digest(digest)
    registry, repository = split_registry(name)
    return ImageReference(registry, repository, tag, digest)
