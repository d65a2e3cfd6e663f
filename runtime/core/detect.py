"""Which record a message is, from its leading bytes (a spec record's ``detect:``).

A generated module lists the records that say how to recognise them in
``RECORD_DETECTORS`` and offers ``detect_record(data)``; the CLI uses it when no
``--record`` is given, so a binlog file or a Thrift message decodes as what it is.

    >>> binlog = Magic(bytes.fromhex("fe62696e"))
    >>> binlog.matches(bytes.fromhex("fe62696e0f00")), binlog.matches(b"\\xfe")
    (True, False)
    >>> envelope = Magic(bytes.fromhex("8201"), mask=bytes.fromhex("ff1f"))
    >>> envelope.matches(bytes.fromhex("8241")), envelope.matches(bytes.fromhex("8242"))
    (True, False)
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Magic:
    """``data[offset:offset + len(magic)]`` equals ``magic`` in the bits ``mask`` keeps."""

    magic: bytes
    offset: int = 0
    mask: bytes | None = None

    def matches(self, data: bytes) -> bool:
        window = bytes(data[self.offset : self.offset + len(self.magic)])
        if len(window) < len(self.magic):
            return False
        if self.mask is None:
            return window == self.magic
        return all(b & m == x & m for b, x, m in zip(window, self.magic, self.mask, strict=True))


def detect(detectors: dict[str, Magic], data: bytes) -> str | None:
    """The first record (in spec order) whose detector matches ``data``, else None."""
    return next((record for record, magic in detectors.items() if magic.matches(data)), None)
