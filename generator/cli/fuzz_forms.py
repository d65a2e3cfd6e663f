"""The fuzzer's second phase (generator/cli/fuzz.py): edits of a model's JSON form.

The byte-level phase holds ``parse`` to its rules; this one holds ``build`` to its own:
build never writes bytes its own parse refuses. It takes the JSON form of a seed's model
(``to_dict``), edits it (:func:`edit`: numbers set to the edges of their widths, strings and
``$hex`` bytes cut, lengthened or flipped, list elements dropped, repeated or swapped,
object keys dropped or set to null, a value replaced by one from elsewhere in any seed's
form) and hands it to ``from_dict`` and ``build``. An edited form passes when:

* ``from_dict`` or ``build`` refuses it with :class:`runtime.core.errors.EncodeError`, or
* ``build`` writes bytes that ``parse`` takes (kind ``encode`` when it refuses them, unless
  only for want of the enclosing record, :data:`NEEDS_PARENT`, or for strings given as bytes
  that are no UTF-8, which a Thrift parse reads with ``strings="bytes"``) and writes back
  byte for byte (kind ``bytes``, except for the records still open in
  :data:`generator.cli.exactness.KNOWN_DIFFERENT`);

anything else raised on the way is kind ``crash``. A failing form is saved as
``<record>--<hash>.json`` beside the byte-level phase's inputs and replayed the same way.
"""

from __future__ import annotations

import copy
import json
import random
import traceback

from generator.cli.exactness import is_known
from runtime.core.errors import DecodeError, EncodeError

INTERESTING_INTS = (
    *(0, 1, -1, 2, 7, 8, 127, 128, 255, 256, -128, -129, 65535, 65536, -32769),
    *(2**31 - 1, 2**31, -(2**31) - 1, 2**32 - 1, 2**32, 2**53 + 1, 2**63 - 1, 2**63),
    *(-(2**63) - 1, 2**64 - 1, 2**64),
)
"""Numbers at and just past the edges of the widths a wire integer has."""
NEEDS_PARENT = "it needs its enclosing record"
"""What parse says of a record read on its own that reads its enclosing record's fields
(Kafka's ``batch`` once an edit gives it records, whose offsets are derived from
``_parent._parent.base_offset``): its bytes are not judged on their own."""
EDITS_PER_FORM = (1, 1, 1, 2, 3)
"""How many edits one form gets (drawn from these)."""


def as_form(value):
    """A JSON form as it travels (through ``json``): tuples become lists, and so on."""
    return json.loads(json.dumps(value))


def encoded(form) -> bytes:
    """A form as saved and shown: JSON, keys sorted (``json.loads`` reads it back).

    >>> encoded({"b": [1, {"$hex": "00"}], "a": None})
    b'{"a": null, "b": [1, {"$hex": "00"}]}'
    """
    return json.dumps(form, sort_keys=True).encode()


def nodes(form, path=()):
    """Every value inside ``form`` with its path (keys and indexes), ``form`` itself first.

    >>> [p for p, _ in nodes({"a": [5, {"b": 1}]})]
    [(), ('a',), ('a', 0), ('a', 1), ('a', 1, 'b')]
    """
    yield path, form
    if isinstance(form, dict):
        for key, value in form.items():
            yield from nodes(value, (*path, key))
    elif isinstance(form, list):
        for index, value in enumerate(form):
            yield from nodes(value, (*path, index))


def _replace(form, path, value):
    if not path:
        return value
    holder = form
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return form


def _edit_int(rng: random.Random, value: int) -> int:
    choice = rng.randrange(3)
    if choice == 0:
        return rng.choice(INTERESTING_INTS)
    if choice == 1:
        return value + rng.choice((-1, 1))
    return value ^ (1 << rng.randrange(64))


def _edit_text(rng: random.Random, text: str, hex_digits: bool) -> str:
    alphabet = "0123456789abcdef" if hex_digits else "az\u00e9\u4e2d\U0001f600\x00"
    unit = 2 if hex_digits else 1
    choice = rng.randrange(5)
    if choice == 0 or not text:
        return text + "".join(rng.choice(alphabet) for _ in range(unit * rng.randint(1, 9)))
    if choice == 1:  # cut
        return text[: unit * rng.randrange(len(text) // unit + 1)]
    at = unit * rng.randrange(len(text) // unit) if len(text) >= unit else 0
    if choice == 2:  # one unit changed
        return text[:at] + "".join(rng.choice(alphabet) for _ in range(unit)) + text[at + unit :]
    if choice == 3:  # a unit repeated
        return text[: at + unit] + text[at:]
    return ""


def _edit_list(rng: random.Random, items: list, donors: list) -> list:
    choice = rng.randrange(5)
    if choice == 0 or not items:
        same = [v for v in donors if type(v) is type(items[0])] if items else donors
        return items + [copy.deepcopy(rng.choice(same or [None]))]
    at = rng.randrange(len(items))
    if choice == 1:
        return items[:at] + items[at + 1 :]
    if choice == 2:
        return items[: at + 1] + [copy.deepcopy(items[at])] + items[at + 1 :]
    if choice == 3:
        other = rng.randrange(len(items))
        items = list(items)
        items[at], items[other] = items[other], items[at]
        return items
    return []


def _edit_object(rng: random.Random, obj: dict, donors: list) -> dict | None:
    if not obj:
        return None
    key = rng.choice(list(obj))
    obj = dict(obj)
    choice = rng.randrange(3)
    if choice == 0:
        del obj[key]
    elif choice == 1:
        obj[key] = None
    else:
        same = [v[key] for v in donors if isinstance(v, dict) and key in v]
        obj[key] = copy.deepcopy(rng.choice(same or [None]))
    return obj


def edit_value(rng: random.Random, value, donors: list):
    """One edit of one value; ``donors``: values from every seed's form (for splices)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return _edit_int(rng, value)
    if isinstance(value, float):
        return rng.choice((0.0, -0.0, 1e308, -1.5, value * 2, float("inf")))
    if isinstance(value, str):
        return _edit_text(rng, value, hex_digits=False)
    if isinstance(value, list):
        return _edit_list(rng, value, donors)
    if isinstance(value, dict) and set(value) == {"$hex"} and isinstance(value["$hex"], str):
        return {"$hex": _edit_text(rng, value["$hex"], hex_digits=True)}
    if isinstance(value, dict) and rng.random() < 0.5:
        return _edit_object(rng, value, donors)
    same = [v for v in donors if type(v) is type(value)]  # a splice (null: anything)
    return copy.deepcopy(rng.choice(same or donors or [None]))


def edit(rng: random.Random, form, donors: list):
    """A copy of ``form`` with a few edits (:data:`EDITS_PER_FORM`), deterministic for the
    state of ``rng``.

    >>> form = {"n": 5, "items": [1, 2], "data": {"$hex": "0a0b"}}
    >>> edit(random.Random(3), form, [form]) != form
    True
    """
    form = copy.deepcopy(form)
    for _ in range(rng.choice(EDITS_PER_FORM)):
        path, value = rng.choice(list(nodes(form)))
        form = _replace(form, path, edit_value(rng, value, donors))
    return form


def donors_of(forms: list) -> list:
    """Every value inside ``forms``, the splices' sources (at most a few thousand)."""
    found = [value for form in forms for _, value in nodes(form)]
    return found[:: max(1, len(found) // 4000)]


def _taken(parse, data: bytes) -> bool:
    """Whether ``parse`` (None: there is none) takes ``data``."""
    if parse is None:
        return False
    try:
        parse(data)
    except DecodeError:
        return False
    return True


def check_form(t, form, fail, difference):
    """``fail(kind, detail)`` if the edited ``form`` breaks a rule of the module doc, else
    None. ``t``: the record's :class:`generator.cli.fuzz.Target`; ``difference(expected,
    written)``: a byte difference in words."""
    try:
        model = t.from_dict(form)
        written = t.build(model)
    except EncodeError:
        return None
    except Exception:  # noqa: BLE001 - exactly what the fuzzer looks for
        return fail("crash", "from_dict or build: " + traceback.format_exc(limit=-4))
    try:
        again = t.parse(written)
    except DecodeError as err:
        if NEEDS_PARENT in err.message:  # the record is read only inside its enclosing one
            return None
        if _taken(t.parse_bytes_strings, written):  # strings given as bytes, read as bytes
            return None
        shown = written[:256].hex() + ("..." if len(written) > 256 else "")
        return fail("encode", f"build wrote {shown}\nparse refuses what build wrote: {err}")
    except Exception:  # noqa: BLE001
        return fail("crash", "parse of built bytes: " + traceback.format_exc(limit=-4))
    if is_known(t.format, t.record):
        return None
    try:
        rewritten = t.build(again)
    except Exception:  # noqa: BLE001 - it built the same message's model once
        return fail("bytes", "build of its parse: " + traceback.format_exc(limit=-4))
    if rewritten != written:
        return fail("bytes", difference(written, rewritten))
    return None
