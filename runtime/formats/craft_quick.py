"""TiCDC Craft's quick mapping: frames read by the generated fast path -> events, with no
error bookkeeping (the way back's quick path is the generated ``UNMAPPINGS["message"]`` run
with :func:`runtime.core.unmap.give_up`).

It gives up (``_GiveUp``) at the first thing it is not sure about; the checked mapping
(:mod:`runtime.formats.craft_events`) then maps the same input again and raises its
precise error, so both paths fail the same way by construction; tests hold them to the
same events. The spec's ``map:`` of ``message`` makes the events
on both (here run with :func:`_give_up` and the values' quick decoder), and the spec's
``decode_by:`` of the values drives both (``kinds``: a
:class:`runtime.core.value_kinds.ValueKinds`, whose ``quick`` table gives the wire type of
each type code, None for unknown).

    >>> from generated.ticdc_craft import frame, VALUE_DECODERS, DICTIONARIES, MAPPINGS
    >>> from runtime.core.limits import DEFAULT
    >>> kinds, mapping = VALUE_DECODERS["column_group.values"], MAPPINGS["message"]
    >>> model = frame.parse(bytes.fromhex("018180e0bb9bb6def10503010101021a19010005"))
    >>> _quick_events(model, kinds, mapping)
    [ResolvedEvent(commit_ts=424316594097225729)]
"""

from __future__ import annotations

from runtime.formats.ticdc import Event


class _GiveUp(Exception):
    """The quick mapping met something it leaves to the checked one."""


def _give_up(*_fault):
    """The quick path's ``fail`` of the spec's mapping: any fault goes to the checked path."""
    raise _GiveUp


def _quick_events(model, kinds, mapping) -> list[Event]:
    """The events of a parsed frame (read with the spec's rules: rows are not mixed with
    other events, a row body has groups), when everything in it is as the reference writes it
    (no error bookkeeping: anything else raises, and the caller maps the frame again with
    the checks of the construct path, which raise the exact error or decode the rest).
    ``kinds``: the values' :class:`runtime.core.value_kinds.ValueKinds`; ``mapping``: the
    spec's ``map:``, run with :func:`_give_up`."""
    return mapping(model, _give_up, kinds.quick_values)
