"""Entropy, cross-entropy and the Kullback–Leibler divergence of discrete distributions, in nats."""

import numpy as np

from .._contract import checked
from ._checks import distribution, same_outcomes

__all__ = ["entropy", "cross_entropy", "kl_divergence"]


@checked(p=distribution)
def entropy(p):
    """The entropy H(p) = −Σₖ pₖ log pₖ of a distribution over K outcomes, in nats, eq. (A.26).

    Outcomes with pₖ = 0 add nothing (0 log 0 = 0, the limit of t log t as t → 0).

    Parameters
    ----------
    p : array_like of shape (K,)
        Probabilities >= 0 that sum to 1.

    Returns
    -------
    H : float, between 0 (one sure outcome) and log K (the uniform distribution)
    """
    return cross_entropy(p, p)  # H(p) = H(p, p)


@checked(p=distribution, q=distribution, also=same_outcomes)
def cross_entropy(p, q):
    """The cross-entropy H(p, q) = −Σₖ pₖ log qₖ, in nats, eq. (A.26): the mean code length under q of outcomes of p.

    Parameters
    ----------
    p, q : array_like of shape (K,)
        Probabilities >= 0 that sum to 1.

    Returns
    -------
    H : float, +inf if q gives probability 0 to an outcome that p does not
    """
    support = p > 0  # (K,): outcomes with pₖ = 0 add 0 · log qₖ = 0, even where qₖ = 0
    with np.errstate(divide="ignore"):  # log 0 = −inf: an impossible outcome under q costs infinitely much
        return 0.0 - float(np.sum(p[support] * np.log(q[support])))  # 0.0 − x: never −0.0


@checked(p=distribution, q=distribution, also=same_outcomes)
def kl_divergence(p, q):
    """The Kullback–Leibler divergence KL(p ‖ q) = Σₖ pₖ log(pₖ / qₖ) = H(p, q) − H(p), in nats, eq. (A.27).

    It is >= 0, and 0 only for q = p (Gibbs' inequality, from Jensen's inequality); it is not symmetric in p and q.

    Parameters
    ----------
    p, q : array_like of shape (K,)
        Probabilities >= 0 that sum to 1.

    Returns
    -------
    kl : float, +inf if q gives probability 0 to an outcome that p does not
    """
    support = p > 0  # (K,): outcomes with pₖ = 0 add nothing
    with np.errstate(divide="ignore"):  # qₖ = 0 < pₖ: log(pₖ / 0) = +inf
        return float(np.sum(p[support] * np.log(p[support] / q[support])))
