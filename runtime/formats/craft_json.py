"""The JSON form of TiCDC Craft events (the generated module's ``to_dict``/``from_dict``):
readable codes, text and commit times (:mod:`runtime.formats.ticdc_json`).

    >>> from runtime.formats.ticdc_json import EventNames
    >>> from generated.models import ticdc_types
    >>> names = EventNames(None, None, None)
    >>> d = _event_to_json(ticdc_types.ResolvedEvent(424316594097225729), names, ticdc_types)
    >>> _event_json(d, {}, names, ticdc_types)
    ResolvedEvent(commit_ts=424316594097225729)

``models`` is the module of the event classes (``generated.models.ticdc_types``), which the
generated Craft module hands its :class:`runtime.formats.craft.CraftMessage`.
"""

from __future__ import annotations

from runtime.core import codec as _codec
from runtime.core.chunks import _at
from runtime.core.errors import EncodeError
from runtime.formats.craft_events import _Path
from runtime.formats.ticdc_json import EXTRA_KEYS, EventNames, bytes_value_from_json


def _json_get(d, key, path=None):
    if not isinstance(d, dict):
        raise EncodeError(f"expected an object, got {type(d).__name__}")
    if key not in d:
        raise EncodeError(f"missing key {key!r}")
    return d[key]


def _opt_str_json(value):
    if value is not None and not isinstance(value, str):
        raise EncodeError(f"expected a string or null, got {value!r}")
    return value


def _column_value_json(value, kind):
    if value is None:
        return None
    if kind == "bytes":  # text for a text column (runtime.formats.ticdc_json), else {"$hex"}
        return bytes_value_from_json(value)
    if kind == "str":
        if isinstance(value, str):
            return value
        raise EncodeError(f"expected a string, got {value!r}")
    if kind == "f64":
        return _codec.float_from_json(value)
    if kind in ("varint", "uvarint"):
        return _codec.int_from_json(value)
    raise EncodeError(f"this type code is always NULL, got {value!r}")


def _columns_json(items, kinds, names: EventNames, column):
    if items is None:
        return None
    if not isinstance(items, list):
        raise EncodeError(f"expected a list of columns, got {items!r}")
    out = []
    for j, c in enumerate(items):
        with _Path(None, j):
            with _Path("type"):
                code = names.type_from_json(_json_get(c, "type"))
            with _Path("flags"):
                flags = names.flags_from_json(c.get("flags", 0))
            kind = kinds.wire_type(code, flags)
            if kind is None:
                raise _at(EncodeError(f"unknown column type code {code}"), "type")
            with _Path("name"):
                name = _json_get(c, "name")
                if not isinstance(name, str):
                    raise EncodeError(f"expected a string, got {name!r}")
            with _Path("value"):
                value = _column_value_json(c.get("value"), kind)
            out.append(column(name, code, flags, value))
    return out


def _event_json(d, kinds, names: EventNames, models):
    """One event from the JSON that :func:`_event_to_json` makes of it: the keys say
    which kind (``query``/``ddl_type``: DDL; ``new``/``old``: row; else resolved)."""
    with _Path("commit_ts"):
        ts = _codec.int_from_json(_json_get(d, "commit_ts"))
    names.commit_ts_checked(d, ts)
    if "query" in d or "ddl_type" in d:
        with _Path("ddl_type"):
            ddl_type = names.ddl_type_from_json(_json_get(d, "ddl_type"))
        with _Path("query"):
            query = _json_get(d, "query")
            if not isinstance(query, str):
                raise EncodeError(f"expected a string, got {query!r}")
        return models.DdlEvent(ts, _opt_str_json(d.get("schema")), _opt_str_json(d.get("table")),
                               ddl_type, query)  # fmt: skip
    if "new" in d or "old" in d:
        ev = models.RowChangedEvent(ts, _opt_str_json(d.get("schema")), _opt_str_json(d.get("table")))
        with _Path("partition"):
            part = d.get("partition")
            ev.partition = None if part is None else _codec.int_from_json(part)
        for image in ("new", "old"):
            with _Path(image):
                setattr(ev, image, _columns_json(d.get(image), kinds, names, models.Column))
        return ev
    unknown = set(d) - {"commit_ts"} - EXTRA_KEYS
    if unknown:
        raise EncodeError(f"a resolved event has only commit_ts, not {sorted(unknown)}")
    return models.ResolvedEvent(ts)


def _event_to_json(ev, names: EventNames, models) -> dict:
    """One event's JSON form: its fields in order, readable (runtime.formats.ticdc_json)."""
    out: dict = {}
    names.put_commit_ts(out, ev.commit_ts)
    if isinstance(ev, models.ResolvedEvent):
        return out
    out["schema"], out["table"] = ev.schema, ev.table
    if isinstance(ev, models.DdlEvent):
        out["ddl_type"] = names.ddl_type_json(ev.ddl_type)
        out["query"] = ev.query
        return out
    out["partition"] = _codec.to_jsonable(ev.partition)
    out["new"], out["old"] = names.image_json(ev.new), names.image_json(ev.old)
    out["row_id"] = _codec.to_jsonable(ev.row_id)
    out["handle_key_only"] = ev.handle_key_only
    out["claim_check_location"] = ev.claim_check_location
    return out
