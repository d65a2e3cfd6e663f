"""Codecs generated from ``specs/`` by ``wirespec generate``; never edit these by hand.

>>> from generated import plainbuffer
>>> plainbuffer.FORMAT
'plainbuffer'
"""
