"""The fuzzer's seeds beyond the shipped samples (generator/cli/fuzz.py): messages a module's
builder writes from models its hypothesis strategies draw, and, for a record drawn only
inside its enclosing record (Craft's ``column_group``, Kafka's ``batch``), its instances in
the other records' seeds, each built on its own."""

from __future__ import annotations

import dataclasses
import importlib
import struct


def split_pair(data: bytes) -> tuple[bytes, bytes]:
    """An Open Protocol fuzz input as (key, value): ``u32be(len(key)) + key + value``.

    >>> split_pair(join_pair(b"k", b"value"))
    (b'k', b'value')
    """
    if len(data) < 4:
        return data, b""
    (n,) = struct.unpack_from(">I", data)
    return data[4 : 4 + n], data[4 + n :]


def join_pair(key: bytes, value: bytes) -> bytes:
    return struct.pack(">I", len(key)) + key + value


def builder_seeds(fmt, record: str, count: int = 12, seed: int = 0) -> list[bytes]:
    """Messages the module's builder writes from models its ``strategies`` draws
    (deterministic for a seed); empty when the module has no strategies or hypothesis is
    not installed. ``fmt``: a format of ``generated/``, or a module (``fuzz --spec``'s)."""
    mod = importlib.import_module(f"generated.{fmt}") if isinstance(fmt, str) else fmt
    if not hasattr(mod, "strategies"):
        return []
    try:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as hseed
    except ImportError:  # pragma: no cover - hypothesis is a test extra
        return []
    table = getattr(mod, "_STRATEGY_RECORDS", {})
    entry = table.get(record, {})
    if entry.get("needs_parent") or entry.get("no_strategy"):
        return []  # drawn only inside its enclosing record, or from the format's own events
    strategy = mod.strategies(record)
    kafka = getattr(mod, "KAFKA_RECORD", None) == record
    out: list[bytes] = []

    @hseed(seed)
    @settings(
        max_examples=count,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(model):
        data = join_pair(*mod.build_pair(model)) if kafka else mod.build(model, record)
        if data not in out:
            out.append(data)

    collect()
    return out


def cut_seeds(mod, record: str, models) -> list[bytes]:
    """Each model of ``record`` found in ``models`` (and in their fields, at any depth)
    built on its own, in the order found, once each; one whose building needs its enclosing
    record (it reads ``_parent``) is left out.

    >>> @dataclasses.dataclass
    ... class Inner:
    ...     x: int
    >>> @dataclasses.dataclass
    ... class Outer:
    ...     items: list
    >>> class Mod:
    ...     RECORDS = {"inner": type("R", (), {"model": Inner})}
    ...     build = staticmethod(lambda model, record: bytes([model.x]))
    >>> cut_seeds(Mod, "inner", [Outer([Inner(1), Inner(2), Inner(1)])])
    [b'\\x01', b'\\x02']
    """
    model = getattr(mod.RECORDS[record], "model", None)
    if model is None:
        return []
    found: list = []
    todo = list(models)
    while todo:  # models are trees: each node is met once
        node = todo.pop(0)
        if isinstance(node, model):
            found.append(node)
        if isinstance(node, (list, tuple)):
            todo.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            todo.extend(getattr(node, f.name, None) for f in dataclasses.fields(node))
    out: dict[bytes, None] = {}
    for node in found:
        try:
            out[mod.build(node, record)] = None
        except Exception:  # noqa: BLE001, S112 - any: this one is not a message of its own
            continue
    return list(out)
