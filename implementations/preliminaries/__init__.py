"""Appendix A: mathematical preliminaries.

- :mod:`.svd`: the best rank-k approximation and minimum-norm least squares, from the singular value decomposition
  (the pseudo-inverse of chapter 1's normal equations, and of interpolating models);
- :mod:`.gradcheck`: finite-difference gradients and Jacobians, the independent check every derivative of the book
  passes (first used in chapter 1);
- :mod:`.gaussian`: conditioning a multivariate Gaussian (the posterior of chapter 9's diffusion models);
- :mod:`.information`: entropy, cross-entropy and the Kullback–Leibler divergence (chapters 2, 7 and 9).
"""
