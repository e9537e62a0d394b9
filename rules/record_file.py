"""A record file's shape, checked in its raw bytes before the JSON reader builds anything from
it (`rules.verify` reads a record through it): a hostile file must not take the checker's memory
or stack."""

from __future__ import annotations

import operator
from itertools import accumulate

# A record past these is refused before anything is worked out from it: no game comes near them
# (a long game's record is a few megabytes, its JSON a dozen levels deep), and they keep a
# hostile file from taking the checker's memory or stack.
MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64
# The JSON reader builds an object for every value, some 150 bytes each: 64 MiB of `[{},{},...]`
# is 22 million values and 3 GB. So the values are counted in the raw bytes first, against what
# the longest game makes, generously. Every game ends within 30,000 actions (the rules' contract
# test plays random games to that bound; random scavenge, the longest, ends within some 11,000);
# a game's events are its moves and a few seat, clock and offer events beside them. An event is
# some 20 values (its fields, hashes and digests) and its move twice (payload and public form),
# at most 54 values in every game today (terrafex's): 100 values an event is room to spare.
LONGEST_GAME_EVENTS = 30_000
EVENT_VALUES = 100
MAX_VALUES = LONGEST_GAME_EVENTS * EVENT_VALUES  # 3,000,000: a few hundred megabytes read at most


class ShapeError(ValueError):
    """The record's bytes hold more values or deeper nesting than any game's record."""


_NESTING = [0] * 256  # what each byte does to the depth: an opening bracket +1, a closing one -1
_NESTING[ord("{")] = _NESTING[ord("[")] = 1
_NESTING[ord("}")] = _NESTING[ord("]")] = -1
_NOT_SKELETON = bytes(byte for byte in range(256) if not _NESTING[byte] and byte != ord('"'))
_NOT_JSON = "is not JSON: its strings, brackets and separators do not add up"


def check_shape(raw: bytes) -> None:
    """Refuse a record with more than MAX_VALUES values or nested deeper than MAX_DEPTH, from
    its raw bytes, before the JSON reader builds anything. Every step is C code over the bytes
    (a loop in Python would take a minute on 64 MiB), and each one's output is bounded by the
    count before it.

    In JSON every value but the first follows a comma or a colon or opens a container, so those
    bytes, counted (in strings too, which only counts more), bound the values and keys. With the
    escapes gone, the quotes left delimit the strings, at most two a value; between every other
    pair of them lie the brackets, whose running sum is the depth."""
    values = 1 + sum(raw.count(mark) for mark in (b",", b":", b"{", b"["))
    if values > MAX_VALUES:
        raise ShapeError(f"holds more than {MAX_VALUES} values, more than any game makes")
    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")  # an escaped backslash first: `\\"` ends a string
    skeleton = unescaped.translate(None, _NOT_SKELETON)  # its quotes and brackets
    if skeleton.count(b'"') > 2 * values:
        raise ShapeError(_NOT_JSON)
    brackets = b"".join(skeleton.split(b'"')[::2])  # outside the strings
    if len(brackets) > 2 * values:  # each container opens and closes once
        raise ShapeError(_NOT_JSON)
    if max(accumulate(map(_NESTING.__getitem__, brackets), operator.add, initial=0)) > MAX_DEPTH:
        raise ShapeError(f"is nested more than {MAX_DEPTH} levels deep")
