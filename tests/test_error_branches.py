"""Error branches of runtime/core and generator/cli that no other test reached (found by a
line trace of the suite): the CLI's last-resort mappings of an exception to an exit status,
the limits cache when full, an enum key in an error's path, a model's missing key."""

from __future__ import annotations

import dataclasses
import enum
import types

import pytest

from generator.cli import main as cli
from runtime.core import limits
from runtime.core.errors import EncodeError, did_you_mean
from runtime.core.limits import Limits
from runtime.core.model import Model


def run_verb(monkeypatch, error: BaseException) -> int:
    """``main()`` with a verb whose run raises ``error``."""

    def run(args):
        raise error

    args = types.SimpleNamespace(run=run, verb="decode")
    monkeypatch.setattr(cli, "parser", lambda: types.SimpleNamespace(parse_args=lambda _: args))
    return cli.main([])


def test_an_os_error_of_a_verb_is_one_line_and_status_1(monkeypatch, capsys):
    error = PermissionError(13, "Permission denied", "out.json")
    assert run_verb(monkeypatch, error) == cli.EXIT_BAD_INPUT
    assert capsys.readouterr().err == "wirespec: cannot use out.json: Permission denied\n"


def test_a_missing_extra_names_what_to_install(monkeypatch, capsys):
    assert run_verb(monkeypatch, ModuleNotFoundError("no", name="pyarrow.lib")) == 1
    assert "pip install 'wirespec[spark]'" in capsys.readouterr().err


def test_a_missing_module_of_no_extra_is_a_bug_and_raised(monkeypatch):
    with pytest.raises(ModuleNotFoundError):
        run_verb(monkeypatch, ModuleNotFoundError("no", name="not_an_extra"))


def test_an_interrupt_exits_130_and_a_closed_pipe_141(monkeypatch):
    assert run_verb(monkeypatch, KeyboardInterrupt()) == cli.EXIT_INTERRUPTED == 130
    monkeypatch.setattr(cli, "_quiet_stdout", lambda: None)  # the test's stdout stays
    assert run_verb(monkeypatch, BrokenPipeError()) == cli.EXIT_BROKEN_PIPE == 141


def test_the_limits_cache_starts_over_when_full(monkeypatch):
    monkeypatch.setattr(limits, "_MADE", {})
    monkeypatch.setattr(limits, "_MADE_MAX", 2)
    made = [Limits.from_kwargs({"max_depth": depth}) for depth in (1, 2, 3)]
    assert [m.max_depth for m in made] == [1, 2, 3]
    assert len(limits._MADE) == 1  # cleared at the third, which it then holds
    assert Limits.from_kwargs({"max_depth": 3}) is made[2]


def test_an_enum_key_reads_as_its_member_in_an_error_path():
    class Color(enum.Enum):
        RED = 1

    err = EncodeError("expected str, got int").add_key(Color.RED)
    err.add_path("prefs")
    assert str(err) == "prefs[Color.RED]: expected str, got int"


def test_did_you_mean_of_a_name_that_is_not_text_is_nothing():
    assert did_you_mean(3, ["plainbuffer"]) == ""


def test_a_model_reads_like_a_mapping_and_a_missing_key_is_a_key_error():
    @dataclasses.dataclass
    class Point(Model):
        x: int = 1

    point = Point()
    assert point["x"] == 1 and point.get("y", 0) == 0
    assert point.keys() == ["x"] and point.items() == [("x", 1)]
    with pytest.raises(KeyError, match="y"):
        point["y"]
