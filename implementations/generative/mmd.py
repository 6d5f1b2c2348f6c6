"""Judging a generative model by its samples: the maximum mean discrepancy, and the modes of a known mixture it finds.

Chapter 9 of the book. A generative model gives samples, not a density we can evaluate, so it is judged by comparing
its samples Y with samples X of the data:

- the squared maximum mean discrepancy MMD²(P, Q) = E κ(x, x') + E κ(y, y') − 2 E κ(x, y), x, x' ~ P and
  y, y' ~ Q independent (Gretton et al., 2012), which for the Gaussian (RBF) kernel κ is zero exactly when P = Q,
  estimated from the samples by :func:`mmd2`, with a bandwidth from :func:`median_bandwidth` or set by hand;
- for data drawn from a known mixture (:func:`implementations.data.synthetic.make_gaussian_ring`), how many of its
  K modes the samples reach (:func:`modes_covered`) and what fraction of the samples lies near some mode
  (:func:`high_quality_fraction`): a model that collapses onto a few modes can have good samples and still miss most
  of the distribution; and how widely the samples near a mode spread around it (:func:`mode_std`), which catches
  modes made too narrow as well as too wide.

``tools/train_generative_comparison.py`` (``make generative-comparison``) scores the chapter's models on the ring
from several seeds at equal budgets; :func:`load_ring_comparison` reads what it wrote.
"""


import numpy as np

from .._contract import checked
from .._validation import folder_holding
from ..data import datasets
from ..kernel_methods.kernels import rbf_kernel
from . import _checks

__all__ = ["mmd2", "median_bandwidth", "assign_to_modes", "modes_covered", "high_quality_fraction", "mode_std",
           "load_ring_comparison"]

#: The comparison that ``tools/train_generative_comparison.py`` (``make generative-comparison``) writes in ``data/``.
RING_COMPARISON = "ring_generative_comparison.npz"


def _squared_distances(X, Y):
    """‖x_i − y_j‖² for all pairs, as ‖x‖² + ‖y‖² − 2 x·y: one matrix product instead of an (m, n, D) array."""
    squared = (X**2).sum(axis=1)[:, None] + (Y**2).sum(axis=1)[None, :] - 2.0 * X @ Y.T  # (m, n)
    return np.maximum(squared, 0.0)  # round-off can make a distance of 0 slightly negative


@checked(X="array (m, D)", Y="array (n, D)", bandwidth="rate", unbiased="flag",
         also=_checks.two_points_each_if_unbiased)
def mmd2(X, Y, *, bandwidth, unbiased=True):
    """Estimate of the squared maximum mean discrepancy MMD²(P, Q) of eq. (9.14) between samples X ~ P and Y ~ Q.

    With κ(x, y) = exp(−‖x − y‖² / (2s²)), chapter 3's :func:`~implementations.kernel_methods.kernels.rbf_kernel` of
    width s, and K_XX, K_YY, K_XY its matrices on the samples,

    * ``unbiased=True``, the U-statistic of Gretton et al. (2012, Lemma 6), whose expectation is MMD² exactly:

          MMD²_u = 1/(m(m−1)) Σ_{i≠j} κ(x_i, x_j) + 1/(n(n−1)) Σ_{i≠j} κ(y_i, y_j) − 2/(mn) Σ_{i,j} κ(x_i, y_j);

      the diagonal terms κ(x_i, x_i) = 1 are left out, so it can be slightly negative when P = Q;
    * ``unbiased=False``, the V-statistic (their eq. 5), the same with the diagonals kept and 1/m², 1/n²:

          MMD²_b = 1/m² Σ_{i,j} κ(x_i, x_j) + 1/n² Σ_{i,j} κ(y_i, y_j) − 2/(mn) Σ_{i,j} κ(x_i, y_j) ≥ 0,

      which overestimates: when P = Q its expectation is (1/m + 1/n)(1 − E κ(x, x')) > 0, not 0.

    The estimate depends on s: compare models only at the same bandwidth, and report it.

    Parameters
    ----------
    X : array_like of shape (m, D)
        Sample of P (e.g. the data); m ≥ 2 for the unbiased estimate.
    Y : array_like of shape (n, D)
        Sample of Q (e.g. a model's samples); n ≥ 2 for the unbiased estimate.
    bandwidth : float
        The width s > 0 (see :func:`median_bandwidth` for a default).
    unbiased : bool, default True

    Returns
    -------
    float
    """
    m, n = X.shape[0], Y.shape[0]
    K_XX = rbf_kernel(X, X, width=bandwidth)  # (m, m)
    K_YY = rbf_kernel(Y, Y, width=bandwidth)  # (n, n)
    K_XY = rbf_kernel(X, Y, width=bandwidth)  # (m, n)
    if unbiased:  # leave out the m (and n) pairs of a point with itself
        within_X = (K_XX.sum() - np.trace(K_XX)) / (m * (m - 1))
        within_Y = (K_YY.sum() - np.trace(K_YY)) / (n * (n - 1))
    else:
        within_X, within_Y = K_XX.sum() / m**2, K_YY.sum() / n**2
    return float(within_X + within_Y - 2.0 * K_XY.mean())


@checked(X="array (m, D)", Y="array (n, D)")
def median_bandwidth(X, Y):
    """The median heuristic: the width s = the median Euclidean distance ‖z_i − z_j‖ between two pooled points.

    Z = [X; Y] has N = m + n rows; the median is over its N(N − 1)/2 pairs i < j (each pair once, no point with
    itself), of the distances themselves, not squared. It is the scale at which the Gaussian kernel
    exp(−‖z − z'‖² / (2s²)) of a typical pair is e^(−1/2) ≈ 0.61; Gretton et al. (2012) use it in their experiments.
    It sees the overall scale of the data, not finer structure: for the eight narrow modes of
    :func:`~implementations.data.synthetic.make_gaussian_ring` it is about 2√2 ≈ 2.8 (the distance between modes a
    quarter-turn apart), the scale of the whole ring, and an MMD² at that bandwidth barely tells sharp modes from
    blurred ones; a bandwidth of the modes' scale does. It costs O(N²)
    memory: a few thousand points at most.

    Parameters
    ----------
    X : array_like of shape (m, D)
    Y : array_like of shape (n, D)
        m + n ≥ 2.

    Returns
    -------
    float
        s > 0.
    """
    Z = np.vstack([X, Y])  # (N, D), N = m + n ≥ 2
    N = Z.shape[0]
    i, j = np.triu_indices(N, k=1)  # the N(N − 1)/2 pairs i < j
    distances = np.sqrt(_squared_distances(Z, Z)[i, j])  # (N(N − 1)/2,)
    width = float(np.median(distances))
    if width == 0.0:
        raise ValueError("the median distance between the points of X and Y is 0 (more than half of the pairs "
                         "coincide), which is no bandwidth; pass a bandwidth chosen by hand instead.")
    return width


@checked(samples="array (N, D)", centres="array (K, D)", radius="penalty")
def assign_to_modes(samples, centres, *, radius):
    """The mode each sample belongs to: its nearest centre if that lies within ``radius``, else −1.

    Parameters
    ----------
    samples : array_like of shape (N, D)
    centres : array_like of shape (K, D)
        The K known modes μ_k (e.g. :func:`implementations.data.synthetic.gaussian_ring_centres`).
    radius : float
        r ≥ 0. A common choice is 3σ for modes of standard deviation σ, which keeps 98.9% of a 2-D Gaussian's mass
        (1 − e^(−9/2)).

    Returns
    -------
    mode : ndarray of shape (N,), int64
        k = argmin_k ‖x − μ_k‖ where that distance is ≤ r, −1 where no centre is that close.
    """
    squared = _squared_distances(samples, centres)  # (N, K)
    nearest = squared.argmin(axis=1)  # (N,)
    near_enough = squared[np.arange(len(nearest)), nearest] <= radius**2  # (N,)
    return np.where(near_enough, nearest, -1).astype(np.int64)


@checked(samples="array (N, D)", centres="array (K, D)", radius="penalty", min_count="count")
def modes_covered(samples, centres, *, radius, min_count=1):
    """How many of the K modes receive at least ``min_count`` samples within ``radius`` (of :func:`assign_to_modes`).

    "Modes covered out of K" (Metz et al., 2017; Srivastava et al., 2017): a model that has collapsed onto a few
    modes covers few of them however good its samples look.

    Parameters
    ----------
    samples : array_like of shape (N, D)
    centres : array_like of shape (K, D)
    radius : float
        r ≥ 0, see :func:`assign_to_modes`.
    min_count : int, default 1
        Samples a mode needs to count as covered, ≥ 1; a larger value ignores a mode hit by a stray sample or two.

    Returns
    -------
    int
        Between 0 and K.
    """
    mode = assign_to_modes(samples, centres, radius=radius)  # (N,)
    K = len(centres)
    counts = np.bincount(mode[mode >= 0], minlength=K)  # (K,) samples per mode
    return int((counts >= min_count).sum())


@checked(samples="array (N, D)", centres="array (K, D)", radius="penalty")
def high_quality_fraction(samples, centres, *, radius):
    """The fraction of samples within ``radius`` of some mode (of :func:`assign_to_modes`): the "high-quality" ones.

    Parameters
    ----------
    samples : array_like of shape (N, D)
    centres : array_like of shape (K, D)
    radius : float
        r ≥ 0.

    Returns
    -------
    float
        Between 0 and 1.
    """
    return float(np.mean(assign_to_modes(samples, centres, radius=radius) >= 0))



@checked(samples="array (N, D)", centres="array (K, D)", radius="penalty")
def mode_std(samples, centres, *, radius):
    """How widely the samples near a mode spread around its centre: √(mean ‖x − μ_k‖² / D) over the samples x within
    ``radius`` of their nearest centre μ_k (of :func:`assign_to_modes`).

    For samples of Gaussian modes N(μ_k, σ² I) and a radius of many σ it is σ. The high-quality fraction cannot tell a
    mode drawn too narrow from a right one (both put their samples near the centre); this number can.

    Parameters
    ----------
    samples : array_like of shape (N, D)
    centres : array_like of shape (K, D)
    radius : float
        r ≥ 0; pick it well above the modes' width and below half the distance between two centres (the chapter
        takes 10σ = 0.5 on the ring).

    Returns
    -------
    float
        ≥ 0, or NaN when no sample lies within the radius of a centre.
    """
    mode = assign_to_modes(samples, centres, radius=radius)  # (N,)
    near = mode >= 0  # (N,)
    if not near.any():
        return float("nan")
    squared = ((samples[near] - centres[mode[near]]) ** 2).sum(axis=1)  # (N_near,) ‖x − μ_k‖²
    return float(np.sqrt(squared.mean() / samples.shape[1]))


@checked(data_dir=folder_holding(RING_COMPARISON))
def load_ring_comparison(*, data_dir=None):
    """The GANs, VAEs and diffusion models of chapter 9 trained on the ring from several seeds, scored as
    ``tools/train_generative_comparison.py`` wrote them; the file is checked against ``data/SHA256SUMS`` first.

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``ring_generative_comparison.npz`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    scores : dict of str -> ndarray of shape (S, 4)
        For each run (a model and its budget, e.g. ``"GAN, 1,050 rounds"``), one row per seed of ``config["seeds"]``:
        modes covered, high-quality fraction, :func:`mode_std` and MMD² against the held-out ring.
    null_mmd2 : ndarray of shape (R,)
        MMD² of R new samples of the ring itself against the same held-out points: the spread of a perfect model.
    config : dict
        The data, the budgets, the seeds and the settings of the measures; ``config["first_points"]`` holds the first
        points of the training and held-out rings, to check that a reader's data are the same.
    """
    def read(stored, config):
        return {run: stored[f"scores/{run}"] for run in config["runs"]}, stored["null_mmd2"], config

    return datasets.read_shipped_archive(RING_COMPARISON, read, data_dir=data_dir)


def _load_chapter_model(kind, build, *, data_dir):
    """(model, losses) of the chapter's own run stored in the comparison file under ``{kind}/seed{chapter_seed}/``:
    ``build(config)`` makes the model, which then gets the stored parameters (``.../state/{name}``, as ``state_dict``
    names them); ``losses`` are the stored training losses (``.../train_loss``). Shared by ``vae.load_ring_vae`` and
    ``diffusion.load_ring_denoiser``; the file is checked against ``SHA256SUMS`` first."""
    def read(stored, config):
        run = f"{kind}/seed{config['chapter_seed']}"
        prefix = f"{run}/state/"
        model = build(config)
        model.load_state_dict({key.removeprefix(prefix): stored[key] for key in stored.files if key.startswith(prefix)})
        return model, stored[f"{run}/train_loss"]

    return datasets.read_shipped_archive(RING_COMPARISON, read, data_dir=data_dir)
