"""Random identifiers the server mints: object uids, audit IDs and generateName suffixes.

`uuid.uuid4()` and `secrets` read the operating system's entropy on every call — a system call that
costs more than the rest of minting an id, paid once or several times by every write. These ids
only need to be unique, not secret (kube-apiserver too draws generateName suffixes from a seeded
math/rand), so each API server instance draws them from its own generator, seeded once from the
operating system's entropy. Uids and audit IDs keep RFC 4122's version 4 shape.
"""

from __future__ import annotations

import os
import random

# Characters kube-apiserver uses for generateName suffixes (no vowels, no look-alikes).
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

# RFC 4122 version 4: version nibble 0100, variant bits 10; the other 122 bits are random.
_VERSION_4_CLEAR = ~((0xF000 << 64) | (0xC000 << 48)) & ((1 << 128) - 1)
_VERSION_4_SET = (0x4000 << 64) | (0x8000 << 48)


class RandomIdentifiers:
    """One instance's source of unique ids (not for secrets: tokens and keys use `secrets`)."""

    __slots__ = ("_random",)

    def __init__(self, seed: bytes | None = None) -> None:
        self._random = random.Random(seed if seed is not None else os.urandom(32))  # noqa: S311 - unique, not secret

    def uuid4(self) -> str:
        """A random RFC 4122 version 4 UUID in its canonical 36-character form."""
        value = (self._random.getrandbits(128) & _VERSION_4_CLEAR) | _VERSION_4_SET
        digits = f"{value:032x}"
        return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"

    def name_suffix(self, length: int) -> str:
        """`length` characters of kube's generateName alphabet."""
        return "".join(self._random.choices(NAME_ALPHABET, k=length))
