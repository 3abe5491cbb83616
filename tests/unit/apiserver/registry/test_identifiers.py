import re
import uuid

from flotilla.apiserver.registry.identifiers import NAME_ALPHABET, RandomIdentifiers

_CANONICAL = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def test_uids_are_rfc_4122_version_4() -> None:
    """Every uid parses as a version 4, RFC 4122 variant UUID in canonical form."""
    ids = RandomIdentifiers()
    for _ in range(500):
        text = ids.uuid4()
        parsed = uuid.UUID(text)
        assert _CANONICAL.match(text)
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122
        assert str(parsed) == text


def test_uids_do_not_repeat() -> None:
    """Ten thousand uids from one source are all distinct."""
    ids = RandomIdentifiers()
    assert len({ids.uuid4() for _ in range(10000)}) == 10000


def test_sources_seeded_from_the_system_differ() -> None:
    """Two instances (two API servers in one process) do not mint the same ids."""
    assert RandomIdentifiers().uuid4() != RandomIdentifiers().uuid4()


def test_a_seed_makes_the_sequence_repeatable() -> None:
    """The same seed gives the same ids, so tests can pin them."""
    assert RandomIdentifiers(b"seed").uuid4() == RandomIdentifiers(b"seed").uuid4()


def test_name_suffixes_use_kubes_alphabet() -> None:
    """generateName suffixes have the asked length and only kube's consonants and digits."""
    ids = RandomIdentifiers()
    suffixes = [ids.name_suffix(5) for _ in range(200)]
    assert all(len(s) == 5 and set(s) <= set(NAME_ALPHABET) for s in suffixes)
    assert len(set(suffixes)) > 190
