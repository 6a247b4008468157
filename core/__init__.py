"""memagent.core: the leaf layer.

The settings model (not its reading), ``Context``, ``State`` and its reducers, and the
types shared across layers (``Turn``, ``Job``). Imports nothing from memagent.
"""
