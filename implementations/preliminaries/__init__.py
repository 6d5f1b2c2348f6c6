"""Appendix A: mathematical preliminaries.

- :mod:`.gradcheck`: finite-difference gradients and Jacobians, the independent check every derivative of the book
  passes (first used in chapter 1).
"""
