"""runtime.core.limits.limits_from_options: the limits as Spark and CLI options (no JVM)."""

from __future__ import annotations

import doctest

import pytest

import runtime.core.limits
from runtime.core.errors import OptionError
from runtime.core.limits import LIMIT_NAMES, limits_from_options


def test_limits_from_options_parses_strings_and_refuses_bad_values():
    assert doctest.testmod(runtime.core.limits).failed == 0
    given = {name: str(i + 1) for i, name in enumerate(LIMIT_NAMES)}
    assert limits_from_options({**given, "mode": "x"}) == {
        name: i + 1 for i, name in enumerate(LIMIT_NAMES)
    }
    for bad in ("", "ten", "1.5", "0", "-3", True, 2.0, None):
        with pytest.raises(OptionError, match="max_count"):
            limits_from_options({"max_count": bad})
