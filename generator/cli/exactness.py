"""Byte exactness, ``build(parse(x)) == x`` for every input that decodes: the records
still known to break it.

``wirespec fuzz`` checks it on every input it makes (:func:`generator.cli.fuzz.check`), and
tests/test_exactness.py on mutants of every record's fuzz seeds. Both take the records of
:data:`KNOWN_DIFFERENT` as known; the test fails when one of them no longer differs, so
the table cannot go stale.

    >>> KNOWN_DIFFERENT, is_known("ticdc_craft", "frame")  # every record exact
    ({}, False)
"""

from __future__ import annotations

ANY_RECORD = "*"
"""A :data:`KNOWN_DIFFERENT` record that stands for every record of its format."""

KNOWN_DIFFERENT: dict[tuple[str, str], str] = {}
"""(format, record or :data:`ANY_RECORD`) -> why ``build(parse(x)) != x`` for some inputs
still. A record listed must still differ in tests/test_exactness.py (remove it when it no
longer does); for :data:`ANY_RECORD`, some record of the format must (a saved fuzz input
in tests/fuzz/crashes keeps that so)."""


def is_known(fmt: str, record: str) -> bool:
    """Whether ``(fmt, record)`` may still differ (:data:`KNOWN_DIFFERENT`)."""
    return (fmt, record) in KNOWN_DIFFERENT or (fmt, ANY_RECORD) in KNOWN_DIFFERENT
