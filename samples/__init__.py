"""Realistic sample messages of every format, written by ``make_samples.py``."""
