"""Specs made from other schema languages: Thrift IDL."""
