"""Image references: distribution's grammar, registry detection, tag and digest handling."""

from __future__ import annotations

import pytest

from flotilla.overrides.images import ImageReference, ImageReferenceError, parse_image

DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize(
    ("image", "reference"),
    [
        ("nginx", ImageReference("", "nginx")),
        ("nginx:1.25", ImageReference("", "nginx", "1.25")),
        ("library/nginx:latest", ImageReference("", "library/nginx", "latest")),
        ("registry.k8s.io/pause:3.9", ImageReference("registry.k8s.io", "pause", "3.9")),
        (
            "fictional.registry.example:10443/karmada/cm:v1",
            ImageReference("fictional.registry.example:10443", "karmada/cm", "v1"),
        ),
        ("localhost/app", ImageReference("localhost", "app")),
        ("localhost:5000/team/app:dev", ImageReference("localhost:5000", "team/app", "dev")),
        (f"envoyproxy/envoy@{DIGEST}", ImageReference("", "envoyproxy/envoy", "", DIGEST)),
        (f"quay.io/app:2@{DIGEST}", ImageReference("quay.io", "app", "2", DIGEST)),
        ("[fd00::1]:5000/app", ImageReference("[fd00::1]:5000", "app")),
    ],
)
def test_parse_image_splits_registry_repository_tag_and_digest(image: str, reference: ImageReference) -> None:
    """References parse into their parts and print back unchanged."""
    assert parse_image(image) == reference
    assert str(reference) == image


@pytest.mark.parametrize(
    ("image", "message"),
    [
        ("", "at least one component"),
        ("Nginx", "must be lowercase"),
        ("nginx:", "invalid reference format"),
        ("nginx::1", "invalid reference format"),
        ("nginx@sha256:abc", "invalid reference format"),
        ("nginx@md5:" + "a" * 32, "unsupported digest algorithm"),
        ("nginx@sha256:" + "a" * 63 + "ab", "invalid checksum digest length"),
        ("a/" * 130 + "b", "not be more than 255 characters"),
    ],
)
def test_parse_image_refuses_invalid_references_with_distributions_words(image: str, message: str) -> None:
    """What the distribution grammar refuses is refused with the same message."""
    with pytest.raises(ImageReferenceError, match=message):
        parse_image(image)


def test_tag_or_digest_replacement_picks_by_shape() -> None:
    """A tag-shaped value becomes the tag (dropping a digest); a digest-shaped one the digest."""
    reference = parse_image(f"app:1@{DIGEST}")
    assert str(reference.with_tag_or_digest("2")) == "app:2"
    assert str(parse_image("app:1").with_tag_or_digest(f"@{DIGEST}")) == f"app@{DIGEST}"
    assert reference.with_tag_or_digest("not a tag!") == reference


def test_removing_the_tag_keeps_a_digest() -> None:
    """Remove drops the tag when there is one, otherwise the digest."""
    assert str(parse_image(f"app:1@{DIGEST}").without_tag_or_digest()) == f"app@{DIGEST}"
    assert str(parse_image(f"app@{DIGEST}").without_tag_or_digest()) == "app"
