"""The compiled writers' refusal of ``on_cut: keep``: a record whose ``repeat: eos`` keeps a
cut element's bytes (``<name>_cut``) is written by the Python fast writer
(:meth:`generator.emit.fastbuild.BuildEmitter.cut_tail`: the elements, then those bytes, as
``runtime.core.sequences.RepeatEos`` builds them). A base of
:class:`generator.emit.compiled_writers.CompiledWriters`, in front of its ``BuildEmitter``:

    >>> from generator import ROOT
    >>> from generator.emit.fastbuild import BuildEmitter
    >>> from generator.spec.loader import load_text
    >>> from generator.spec.validate import build_model
    >>> path = ROOT / "tests" / "data" / "user_specs" / "pcap.yaml"  # on_cut: keep added
    >>> text = path.read_text().replace("repeat: eos,", "repeat: eos, on_cut: keep,")
    >>> spec = build_model(load_text(text, path))
    >>> class Writers(CutRefusal, BuildEmitter):
    ...     pass
    >>> print(Writers(spec).refused["packets"])
    on_cut: keep (its cut bytes are written by the Python fast writer)
    >>> "packets" in BuildEmitter(spec).supported
    True
"""

from __future__ import annotations

from generator.emit.fastbuild import Unsupported
from generator.spec.model import Record

CUT_BY_PYTHON = "on_cut: keep (its cut bytes are written by the Python fast writer)"
"""Why a record with an ``on_cut: keep`` field has no compiled writer."""


class CutRefusal:
    """Refuses a record with an ``on_cut: keep`` field before the writer it mixes into
    renders it."""

    def record_function(self, record: Record, written: dict) -> str:
        if any(field.on_cut for field in record.fields):
            raise Unsupported(CUT_BY_PYTHON)
        return super().record_function(record, written)
