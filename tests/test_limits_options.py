"""runtime.core.limits: the limits as Spark and CLI options, and as call keywords (no JVM)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import runtime.core.limits
from runtime.core.errors import OptionError, WirespecError
from runtime.core.limits import DEFAULT, LIMIT_NAMES, Limits, limits_from_options


def test_limits_from_options_parses_strings_and_refuses_bad_values():
    assert doctest.testmod(runtime.core.limits).failed == 0
    given = {name: str(i + 1) for i, name in enumerate(LIMIT_NAMES)}
    assert limits_from_options({**given, "mode": "x"}) == {
        name: i + 1 for i, name in enumerate(LIMIT_NAMES)
    }
    for bad in ("", "ten", "1.5", "0", "-3", True, 2.0, None):
        with pytest.raises(OptionError, match="max_count"):
            limits_from_options({"max_count": bad})


def test_limits_made_from_the_same_ints_are_made_once_and_others_every_time():
    first = Limits.from_kwargs({"max_depth": 8, "max_count": 9}, DEFAULT)
    assert Limits.from_kwargs({"max_depth": 8, "max_count": 9}, DEFAULT) is first
    assert Limits.from_kwargs({"max_depth": 8}, Limits(max_count=5)).max_count == 5
    base = Limits(max_count=123_457)  # a base no other test uses: nothing cached for it
    flags = [Limits.from_kwargs({"max_depth": True}, base) for _ in range(2)]
    assert flags[0].max_depth is True and flags[0] is not flags[1]
    with pytest.raises(WirespecError, match="unknown limit"):
        Limits.from_kwargs({"max_dept": []})


@pytest.mark.parametrize("bad", ["x", "8", 2.0, None, [8]])
def test_a_limit_keyword_that_is_no_whole_number_is_an_option_error(bad):
    Limits.from_kwargs({"max_depth": 2}, DEFAULT)  # 2.0 == 2: the int's limits are not its
    with pytest.raises(OptionError, match=r"limit max_depth must be a whole number"):
        Limits.from_kwargs({"max_depth": bad}, DEFAULT)


@pytest.mark.parametrize("fmt", ["plainbuffer", "parquet", "ticdc_craft"])
def test_parse_with_a_limit_of_the_wrong_type_is_an_option_error_in_every_tier(fmt):
    """The compiled readers compare limits with C integers: a str was a TypeError there."""
    module = importlib.import_module(f"generated.{fmt}")
    sample = min((Path(__file__).parent.parent / "samples" / fmt).glob("*.bin"))
    with pytest.raises(OptionError, match="max_depth"):
        module.parse(sample.read_bytes(), max_depth="x")
