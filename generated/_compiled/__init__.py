"""Cython rendered by ``wirespec generate`` from the specs, one module per format: the
compiled tier (see runtime.core.tier). Never edited by hand."""
