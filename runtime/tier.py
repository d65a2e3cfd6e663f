"""Which tier decodes: the compiled extensions when they are built and allowed, else pure
Python, with the same results either way.

A compiled module is optional. It may be missing (no compiler at install) and it is never
used when ``WIRESPEC_PURE_PYTHON=1`` is set, so every caller keeps its Python path:

    >>> import os
    >>> os.environ.get(PURE_PYTHON_ENV) != "1" or compiled("runtime._compiled.absent") is None
    True
    >>> compiled("runtime._compiled.absent") is None
    True
"""

from __future__ import annotations

import functools
import importlib
import os

PURE_PYTHON_ENV = "WIRESPEC_PURE_PYTHON"
"""Set to ``1`` to force pure Python (read once per process, before the first decode)."""


def pure_python_forced() -> bool:
    """True when the environment asks for pure Python."""
    return os.environ.get(PURE_PYTHON_ENV, "") == "1"


@functools.cache
def compiled(name: str):
    """The compiled module ``name`` (``runtime._compiled.thrift_compact``, say), or None
    when pure Python is forced or the module was not built."""
    if pure_python_forced():
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
