# cython: language_level=3
"""A generated module's ``parse`` with its table readers (``TABLE_READERS``, see
``generator/compiled_tables.py``) tried first, from C: a message they take runs no Python
frame of the module (its ``parse``, then ``runtime.codec.parse_fast`` and the readers' own
calls cost about as much as reading a small message in C)."""

import functools


def tables_first(python_parse, dict readers, default_record):
    """``python_parse`` with ``readers`` (record -> ``(data, limits) -> model or None``)
    tried first; ``python_parse`` decides whatever they decline (None), with the exact
    model or error. ``readers`` is complete by now: the default record's reader is looked
    up here, once."""

    default_reader = readers.get(default_record)

    def parse(data, record=default_record, **limits):
        # the default record (most calls) without a dict lookup
        reader = default_reader if record is default_record else readers.get(record)
        if reader is not None:
            model = reader(data, limits)
            if model is not None:
                return model
        return python_parse(data, record, **limits)

    # the module's parse by name: pickled by reference (Spark ships it to workers) as before
    return functools.update_wrapper(parse, python_parse)
