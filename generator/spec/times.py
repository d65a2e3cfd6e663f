"""``time:``: a timestamp of whole seconds plus a fraction, each an earlier field (or an
expression over earlier fields), the fraction counted in ``per_second`` units a second
(fixed, or an expression the data chooses: pcap's magic says microseconds or nanoseconds).

The field is sugar for a derived value (:meth:`FieldBuilder.derived`): not on the wire,
computed on parse as nanoseconds since 1970 (``logical: unix_nanos``: the number, and
``<name>_time`` beside it in JSON with nine fraction digits), a Spark ``timestamp_ns``
(the number, plus a ``<name>_ts`` TimestampType, which holds microseconds). The seconds
and fraction fields stay in the model as they were read, so ``build`` writes them back
exactly and no nanosecond is lost:

    >>> time_field({"name": "ts", "doc": "d", "time": {"seconds": "s", "fraction": "f",
    ...     "per_second": 1000}})["derived"]
    '(s) * 1000000000 + (f) * 1000000000 // (1000)'
"""

from __future__ import annotations

NANOS = 1_000_000_000

TIME_KEYS = ("seconds", "fraction", "per_second")
"""What ``time:`` says, all required (the JSON Schema checks the shape)."""

ALONGSIDE = ("name", "doc", "time", "spark")
"""The keys a ``time:`` field may have besides: it is no wire field, so no type, size,
condition or other value."""


def time_field(raw: dict) -> dict:
    """``raw`` (a field with ``time:``) as the derived field it stands for: an ``s64`` of
    nanoseconds since 1970, shown as a time in JSON and Spark."""
    time = raw["time"]
    per_second = time["per_second"]
    derived = f"({time['seconds']}) * {NANOS} + ({time['fraction']}) * {NANOS} // ({per_second})"
    spark = {"type": "timestamp_ns", **raw.get("spark", {})}
    return {
        "name": raw["name"],
        "doc": raw["doc"],
        "type": "s64",
        "derived": derived,
        "logical": "unix_nanos",
        "spark": spark,
    }


def check_time(builder, raw: dict, parts, siblings) -> None:
    """Refuse what a ``time:`` field cannot say, each at its key: a wire key beside it, a
    ``per_second`` below 1, an expression naming no earlier field."""
    for key in raw:
        if key not in ALONGSIDE:
            raise builder.error(
                parts + (key,),
                f"a time: field is computed from earlier fields, never on the wire: no {key!r} "
                "(the seconds and the fraction are fields of their own, before it)",
            )
    time = raw["time"]
    per_second = time["per_second"]
    if isinstance(per_second, bool) or (isinstance(per_second, int) and per_second < 1):
        raise builder.error(
            parts + ("time", "per_second"),
            f"per_second is the fraction's units in a second (1000000 for microseconds, "
            f"1000000000 for nanoseconds, 4294967296 for NTP), not {per_second!r}",
        )
    for key in TIME_KEYS:
        builder.expression(str(time[key]), parts + ("time", key), siblings)
