"""From a spec model to code: one lowering, then its targets (construct, the Python
fast path and quick tier, the writers, the compiled tier, strategies, docs)."""
