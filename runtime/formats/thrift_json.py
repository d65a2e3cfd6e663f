"""The JSON form of the generated Thrift structs (``to_dict``/``from_dict``): what every
generated Thrift module's JSON functions would otherwise repeat. Enum values as member
names, text that is no UTF-8 as ``{"$hex": ...}``, and a struct's :class:`WireLayout` as its
``$wire`` key, so ``from_dict(to_dict(m))`` builds the bytes ``m`` was read from.

    >>> layout = WireLayout((1, UnknownField(7, 5, b"\\x02")), (), b"")
    >>> layout_json(layout, {5: "I32"})
    {'order': [1, {'id': 7, 'type': 'I32', 'data': {'$hex': '02'}}]}
    >>> text_json(b"\\xff"), text_from_json({"$hex": "ff"})
    ({'$hex': 'ff'}, b'\\xff')
"""

from __future__ import annotations

from runtime.core import kept as rt_kept
from runtime.core.codec import bytes_from_json
from runtime.core.errors import EncodeError
from runtime.formats.thrift_compact import UnknownField, WireLayout


def enum_json(v):
    """An enum value's JSON form: the member name, or the number if it is not a member."""
    return v.name if hasattr(v, "name") else v


def enum_from_json(members: dict, by_value: dict, v):
    if isinstance(v, str):
        try:
            return members[v]
        except KeyError:
            raise EncodeError(f"{v!r} is not a member name") from None
    if isinstance(v, int) and not isinstance(v, bool):
        return by_value.get(v, v)
    raise EncodeError(f"expected an enum name or number, got {v!r}")


def text_json(v):
    return v if isinstance(v, str) else {"$hex": bytes(v).hex()}


def text_from_json(v):
    if isinstance(v, str):
        return v
    if isinstance(v, dict) and set(v) == {"$hex"}:
        return bytes.fromhex(v["$hex"])
    raise EncodeError(f"expected a string, got {v!r}")


def required_unset(d: dict, name: str) -> EncodeError:
    """What ``from_dict`` says of a form whose required field ``name`` is absent or null:
    only a ``required`` field must be set (a default-requiredness one may be left out, as
    Apache's writers and ``build`` leave it), and ``build`` would refuse the model.

    >>> str(required_unset({}, "id")), str(required_unset({"id": None}, "id"))
    ("<model>: missing key 'id' (the field is required)", '<model>: expected a value, got null (the field is required)')
    """
    if name in d:
        return EncodeError("expected a value, got null (the field is required)")
    return EncodeError(f"missing key {name!r} (the field is required)")


def bool_from_json(v):
    if isinstance(v, bool):
        return v
    raise EncodeError(f"expected true or false, got {v!r}")


def layout_json(layout: WireLayout, names: dict) -> dict:
    """A :class:`WireLayout`'s JSON form (the ``$wire`` key of a struct's)."""
    order = [
        (
            e
            if e.__class__ is int
            else {"id": e.id, "type": names.get(e.type, e.type), "data": {"$hex": e.data.hex()}}
        )
        for e in layout.order
    ]
    d = {"order": order}
    if layout.long_headers:
        d["long_headers"] = list(layout.long_headers)
    if layout.header_types:
        d["header_types"] = {"$hex": layout.header_types.hex()}
    if layout.wire_form is not None:
        d["wire_form"] = rt_kept.to_json(layout.wire_form)
    return d


def layout_from_json(d, types) -> WireLayout:
    """The :class:`WireLayout` of :func:`layout_json`'s form; ``types``: the CompactType enum."""

    def integer(v, low, high, what):
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
            raise EncodeError(f"{what} {v!r} is not an integer in {low}..{high}")
        return v

    if not isinstance(d, dict) or not set(d) <= {
        "order",
        "long_headers",
        "header_types",
        "wire_form",
    }:
        raise EncodeError("$wire has order, long_headers, header_types and wire_form")
    order = []
    for e in d["order"]:
        if isinstance(e, dict):
            t = e["type"]
            t = types[t].value if isinstance(t, str) else integer(t, 1, 15, "field type")
            if t == 0:
                raise EncodeError("an unknown field's type cannot be STOP")
            data = bytes_from_json(e["data"], "data")
            # short-form headers add up past the i16 range: any id an int
            order.append(UnknownField(integer(e["id"], -(2**63), 2**63, "field id"), t, data))
        else:
            order.append(integer(e, -(2**63), 2**63, "field id"))
    ids = [e for e in order if e.__class__ is int]
    if len(ids) != len(set(ids)):
        raise EncodeError("$wire order names a field twice")
    long_headers = tuple(
        integer(i, 0, len(order) - 1, "long header index") for i in d.get("long_headers", ())
    )
    header_types = b""
    if "header_types" in d:
        header_types = bytes_from_json(d["header_types"], "header_types")
    kept = bytes_from_json(d["wire_form"], "wire_form") if "wire_form" in d else None
    return WireLayout(tuple(order), long_headers, header_types, kept)


def pairs_from_json(v):
    """A map's JSON form: an object (string keys) or a list of ``[key, value]`` pairs."""
    if isinstance(v, dict):
        return list(v.items())
    if isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 for p in v):
        return v
    raise EncodeError(f"expected a map as an object or [key, value] pairs, got {v!r}")
