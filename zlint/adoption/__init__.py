"""Turning zlint on in a large existing code base: a baseline of known findings, and
``--add-noqa`` to suppress them in place."""
