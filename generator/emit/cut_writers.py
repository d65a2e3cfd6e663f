"""The fast writers' refusal of ``on_cut: keep``: a record whose ``repeat: eos`` keeps a cut
element's bytes (``<name>_cut``) is written by construct (``runtime.core.sequences.RepeatEos``
writes the elements, then those bytes), as it is read (``generator.emit.fastpath_support``'s
``CUT_KEPT``). A base of the Python and the compiled fast writers, in front of
:class:`generator.emit.fastbuild.BuildEmitter`:

    >>> from generator import ROOT
    >>> from generator.spec.loader import load_text
    >>> from generator.spec.validate import build_model
    >>> path = ROOT / "tests" / "data" / "user_specs" / "pcap.yaml"  # on_cut: keep added
    >>> text = path.read_text().replace("repeat: eos,", "repeat: eos, on_cut: keep,")
    >>> spec = build_model(load_text(text, path))
    >>> print(BuildWriters(spec).refused["packets"])
    on_cut: keep (read by construct: runtime.core.sequences.RepeatEos keeps a cut element's bytes)
"""

from __future__ import annotations

from generator.emit.fastbuild import BuildEmitter, Unsupported
from generator.emit.fastpath_support import CUT_KEPT
from generator.spec.model import Record


class CutRefusal:
    """Refuses a record with an ``on_cut: keep`` field before the writer it mixes into
    renders it."""

    def record_function(self, record: Record, written: dict) -> str:
        if any(field.on_cut for field in record.fields):
            raise Unsupported(CUT_KEPT)
        return super().record_function(record, written)


class BuildWriters(CutRefusal, BuildEmitter):
    """The Python fast writers, ``on_cut: keep`` records refused."""
