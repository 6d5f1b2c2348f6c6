"""From-scratch NumPy implementations used by the chapters of *Machine Learning from scratch*.

Each module holds one topic of the book; the notebooks import them, e.g.
``from implementations import regression``.
"""
