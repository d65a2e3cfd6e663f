"""Hand-written Cython of the compiled tier (see runtime.core.tier): typed loops that the
generated tables drive. Optional: every caller keeps its pure-Python path."""
