"""``repeat: {until:}`` in every tier (issue #18): the exact fast reader with construct's
errors ("the sequence ends before its terminator", the field path and element index,
``max_count``, a test that fails to evaluate), the fast writer, and the plan the quick and
compiled tiers render. A small spec, rendered in a temporary folder: the plan, every
tier's coverage (``FALLBACKS``), and on hypothesis-drawn models, every truncation and
mutations: ``parse`` (compiled, quick, then exact) gives construct's outcome, the quick tier
the exact reader's model or a hand-over, ``build`` construct's bytes. The compiled tier's
text is checked here (building a test spec takes a compiler and too long for the suite)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.emit.compiled import CompiledEmitter
from generator.emit.fastpath import FastPathEmitter
from generator.emit.lowering import Lowering
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import DecodeError
from runtime.core.limits import Limits
from tests.test_process import spec_module
from tests.test_quicktier import exact, quick

UNTILS = """\
format: untils
title: Untils
doc: Lists ended by a terminator.
endian: le
default_record: frame
records:
  word:
    doc: A word.
    fields:
      - {name: text, type: str, size: u8, doc: The text; empty ends a list.}
  group:
    doc: Bytes up to 0xff, within a size.
    fields:
      - name: items
        type: u8
        repeat: {until: "_item == 0xff"}
        doc: Bytes up to and with 0xff.
  frame:
    doc: A frame.
    fields:
      - {name: head, type: u8, doc: A byte.}
      - name: kept
        type: u8
        repeat: {until: "_item == 0"}
        doc: Bytes up to and with a 0.
      - name: words
        type: word
        repeat: {until: "len(_item.text) == 0", include: false, terminator: {text: ""}}
        doc: Words up to an empty one.
      - name: wide
        type: u16
        repeat: {until: "_item >= head", include: false, terminator: 65535}
        doc: Numbers up to one at least head.
      - name: marks
        type: str
        size: u8
        repeat: {until: "_item[0] == '.'"}
        doc: Texts up to one starting with a dot (an empty one fails the test).
      - {name: group, type: group, size: u8, doc: A sized record.}
"""


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("untils") / "untils.yaml"
    path.write_text(UNTILS)
    return path


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return spec_module(tmp_path_factory, "untils_mod", UNTILS)


def test_the_plan_reads_until_the_terminator(spec_path):
    lowering = Lowering(build_model(load(spec_path)))
    assert lowering.refused == {}
    text = lowering.plans["frame"].describe()
    assert "repeat f_kept: values until item1 == 0, within end, <= max_count, inline" in text
    assert (
        "repeat f_words: word until len(item2.text) == 0, within end"
        " (the last one to f_words_terminator), <= max_count, called"
    ) in text
    assert "repeat f_wide: values until item3 >= f_head, within end" in text


def test_every_tier_reads_it(module):
    fallbacks = module.FALLBACKS
    assert fallbacks["parse"] == fallbacks["build"] == {}
    inline = {
        "group": "read inline where frame reads it, its one use (by design: no call); "
        "parse() of it alone stays in Python"
    }
    assert fallbacks["quick"] == fallbacks["compiled"] == inline  # read by frame's
    assert set(module.QUICK_READERS) >= {"frame"} and "frame" in module.FAST_READERS
    assert "frame" in module.FAST_WRITERS


@pytest.mark.parametrize(
    "old, new, why",
    [
        ('"_item == 0"', '"_item == _index"', "a repeat until over `_index`"),
        ("include: false, terminator: 65535}", "include: false}\n        if: head > 1", "a cond"),
    ],
)
def test_what_stays_on_construct_says_why(tmp_path, old, new, why):
    path = tmp_path / "untils.yaml"
    assert old in UNTILS
    path.write_text(UNTILS.replace(old, new))
    fast = FastPathEmitter(build_model(load(path)))
    assert "frame" not in fast.supported and why in fast.refused["frame"]


def test_the_compiled_tier_renders_it(spec_path):
    compiled = CompiledEmitter(build_model(load(spec_path)))
    assert "frame" in compiled.entries and compiled.refused == {}
    text = compiled.module_text("test")
    assert "if pos >= end or item1_n >= lim.max_count:" in text
    assert "item3_stop = (<object>item3) >= (<object>f_head)" in text
    assert "f_words_terminator = f_words.pop()" in text


def outcome_of(parse, data, **limits):
    try:
        return "ok", parse(data, **limits)
    except DecodeError as err:
        return str(err), err.offset, err.path


def held(module, data: bytes, record: str = "frame", **limits) -> None:
    """The quick tier gives the exact reader's model or hands over; parse gives construct's
    outcome (its error message, offset and path)."""
    bounds = Limits.from_kwargs(limits)
    got = quick(module, data, record, bounds)
    if got is not None:
        want = exact(module, data, record, bounds)
        assert want is not None and want[0] == got
    assert outcome_of(module.parse, data, **limits) == outcome_of(
        module.parse_construct, data, **limits
    )


def test_errors_are_constructs(module):
    """Each error the fast reader raises, with its message, offset and path."""
    good = bytes([5, 1, 0, 1, 65, 0, 5, 0, 1, 46, 2, 7, 255])
    assert module.parse(good) == module.parse_construct(good)
    cases = {
        bytes([5, 1, 2]): ("the sequence ends before its terminator", 3, "kept"),
        bytes([5, 0, 1]): ("truncated", 3, "words[0].text"),
        bytes([5, 0, 0, 5]): ("truncated", 3, "wide[0]"),
        bytes([5, 0, 0, 5, 0, 0]): ("expression", 5, "marks"),
        bytes([5, 0, 0, 5, 0, 1, 46, 2, 7, 8]): ("terminator", 10, "group.items"),
    }
    for data, (words, offset, path) in cases.items():
        outcome = outcome_of(module.parse, data)
        assert outcome == outcome_of(module.parse_construct, data)
        assert words in outcome[0] and outcome[1:] == (offset, path), outcome
    many = bytes([5, 1, 1, 1, 1, 0])
    outcome = outcome_of(module.parse, many, max_count=3)
    assert "max_count" in outcome[0] and outcome[1:] == (4, "kept")
    assert outcome == outcome_of(module.parse_construct, many, max_count=3)


def _texts(alphabet="ab."):
    return st.text(alphabet, max_size=4)


@st.composite
def frames(draw, module):
    """A model whose lists end where the spec says: every element but the terminator
    fails the test."""
    head = draw(st.integers(0, 255))
    kept = draw(st.lists(st.integers(1, 255), max_size=4)) + [0]
    words = [module.Word(t) for t in draw(st.lists(_texts().filter(len), max_size=3))]
    wide = draw(st.lists(st.integers(0, max(head - 1, 0)), max_size=3)) if head else []
    marks = draw(st.lists(_texts("ab").filter(len), max_size=3)) + ["." + draw(_texts())]
    items = draw(st.lists(st.integers(0, 254), max_size=4)) + [255]
    return module.Frame(
        head=head,
        kept=kept,
        words=words,
        wide=wide,
        marks=marks,
        group=module.Group(items),
        words_terminator=draw(st.sampled_from([None, module.Word("")])),
        wide_terminator=draw(st.sampled_from([None, head, 65535])),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_tiers_agree_on_drawn_models_truncations_and_mutations(module, data):
    model = data.draw(frames(module))
    built = module.build(model)
    assert built == module.build_construct(model)
    parsed = module.parse_construct(built)
    assert quick(module, built, "frame") == parsed == module.parse(built)
    assert module.build(parsed) == built
    held(module, built)
    held(module, built, max_count=2)
    for cut in range(len(built)):
        held(module, built[:cut])
    buf = bytearray(built)
    for _ in range(data.draw(st.integers(1, 3))):
        buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.integers(0, 255))
    held(module, bytes(buf))


def test_the_writer_refuses_what_construct_refuses(module):
    """An element that ends the list early, or a last one that does not end it."""
    for kept in ([1, 0, 2, 0], [1, 2]):
        model = module.Frame(5, kept, [], [], ["."], module.Group([255]), None, None)
        with pytest.raises(Exception) as fast:
            module.build(model)
        with pytest.raises(Exception) as oracle:
            module.build_construct(model)
        assert type(fast.value) is type(oracle.value)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_generated_strategies_draw_lists_that_parse_back(module, data):
    """``strategies()`` draws each until-list as elements the test fails on, then one it
    holds for (the list's last, or with ``include: false`` the model's terminator): build
    parses back to the same model in every tier, and the fast writer writes construct's
    bytes."""
    model = data.draw(module.strategies("frame"))
    built = module.build(model)
    assert built == module.build_construct(model)
    assert module.parse(built) == module.parse_construct(built) == model
    assert quick(module, built, "frame") == model
    assert exact(module, built, "frame", Limits())[0] == model


def test_the_generated_strategies_draw_lists_of_several_elements(module):
    """Not only the terminator: elements before it, in every until form (the list's
    last with ``include: true``; with ``include: false`` every element is one)."""
    before = {"kept": 2, "marks": 2, "words": 1, "wide": 1}
    seen = dict.fromkeys(before, 0)

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(module.strategies("frame"))
    def draw(model):
        for name, least in before.items():
            seen[name] += len(getattr(model, name)) >= least
        assert model.words_terminator is not None and model.wide_terminator is not None

    draw()
    assert all(seen.values()), seen
