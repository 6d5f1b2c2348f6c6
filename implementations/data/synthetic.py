"""Synthetic points in the plane, drawn fresh from a random generator whenever a chapter needs them.

Nothing here is stored: each generator takes an explicit ``rng`` (a ``numpy.random.Generator``), so the same seed
always gives the same data. Points around a sine curve (chapter 1); two moons, two circles and spiral arms, classes that
no straight line separates (chapters 3 and 4); mixtures of Gaussians on a ring and on a grid, whose modes a generative
model must all find (chapter 9). The sequence tasks of chapter 6 are in :mod:`implementations.data.sequence_tasks`, the
templated corpus of chapter 7 in :mod:`implementations.data.corpora`, the data files shipped in ``data/`` are read by
:mod:`implementations.data.datasets`.
"""

import numpy as np

from .._contract import checked
from .._validation import interval
from ._checks import inner_radius, one_point_per_class, two_classes_or_more

__all__ = [
    "make_sine_data",
    "make_moons",
    "make_circles",
    "make_spirals",
    "gaussian_ring_centres",
    "gaussian_grid_centres",
    "make_gaussian_ring",
    "make_gaussian_grid",
    "gaussian_mixture_density",
]


@checked(n="count", noise="penalty", rng="rng", x_range=interval)
def make_sine_data(n, *, noise, rng, x_range=(0.0, 1.0)):
    """Noisy samples of one period of a sine: y = sin(2πx) + ε, ε ~ N(0, noise²).

    Parameters
    ----------
    n : int
        Number of points N, at least 1.
    noise : float
        Standard deviation σ of the Gaussian noise ε, finite and ≥ 0; 0 gives y = sin(2πx) exactly.
    rng : numpy.random.Generator
        Source of randomness, e.g. ``np.random.default_rng(SEED)``.
    x_range : tuple of float, default (0.0, 1.0)
        Interval (low, high) that x is drawn from uniformly; low < high.

    Returns
    -------
    x : ndarray of shape (N,)
        Inputs, sorted ascending.
    y : ndarray of shape (N,)
        Targets sin(2πx) + ε, float64.
    """
    x = np.sort(rng.uniform(*x_range, size=n))  # (N,) uniform on [low, high)
    epsilon = noise * rng.standard_normal(n)  # (N,) drawn even for noise=0: rng advances the same way
    y = np.sin(2.0 * np.pi * x) + epsilon  # (N,)
    return x, y


@checked(n="count", noise="penalty", rng="rng", also=one_point_per_class)
def make_moons(n, *, noise, rng):
    """Two interleaving half circles, a classic problem that no straight line separates.

    Class 0 lies on the upper half of the unit circle centred at (0, 0), class 1 on the lower half of
    the unit circle centred at (1, 0.5); each point gets isotropic Gaussian noise.

    Parameters
    ----------
    n : int
        Number of points N ≥ 2; class 0 gets ⌈N/2⌉ of them.
    noise : float
        Standard deviation of the noise, ≥ 0.
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (N, 2)
    y : ndarray of shape (N,), int64
        Labels 0 and 1, class 0 first.
    """
    n0 = (n + 1) // 2
    angle0 = rng.uniform(0.0, np.pi, size=n0)  # (n0,)
    angle1 = rng.uniform(0.0, np.pi, size=n - n0)  # (n − n0,)
    upper = np.column_stack([np.cos(angle0), np.sin(angle0)])
    lower = np.column_stack([1.0 - np.cos(angle1), 0.5 - np.sin(angle1)])
    X = np.vstack([upper, lower]) + noise * rng.standard_normal((n, 2))  # (N, 2)
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n - n0, dtype=np.int64)]
    return X, y


@checked(n="count", noise="penalty", factor=inner_radius, rng="rng", also=one_point_per_class)
def make_circles(n, *, noise, factor=0.5, rng):
    """Two concentric circles, a problem that no straight line separates but the squared radius x₁² + x₂² does.

    Class 0 lies on the circle of radius 1 centred at (0, 0), class 1 on the circle of radius ``factor`` inside
    it, at uniformly random angles; each point gets isotropic Gaussian noise.

    Parameters
    ----------
    n : int
        Number of points N ≥ 2; class 0 (the outer circle) gets ⌈N/2⌉ of them.
    noise : float
        Standard deviation of the noise, ≥ 0.
    factor : float, default 0.5
        Radius of the inner circle, 0 < factor < 1.
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (N, 2)
    y : ndarray of shape (N,), int64
        Labels 0 and 1, class 0 first.
    """
    n0 = (n + 1) // 2
    angle0 = rng.uniform(0.0, 2 * np.pi, size=n0)  # (n0,)
    angle1 = rng.uniform(0.0, 2 * np.pi, size=n - n0)  # (n − n0,)
    outer = np.column_stack([np.cos(angle0), np.sin(angle0)])  # (n0, 2): radius 1
    inner = factor * np.column_stack([np.cos(angle1), np.sin(angle1)])  # (n − n0, 2): radius factor
    X = np.vstack([outer, inner]) + noise * rng.standard_normal((n, 2))  # (N, 2)
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n - n0, dtype=np.int64)]
    return X, y


@checked(n_per_class="count", num_classes="count", noise="penalty", rng="rng", turns="penalty",
         also=two_classes_or_more)
def make_spirals(n_per_class, *, num_classes=3, noise, rng, turns=1.0):
    """Interleaved spiral arms, one per class: r grows from 0 to 1 while the angle turns.

    Arm k is r(cos θ, sin θ) with r uniform on [0, 1] and θ = 2π(turns · r + k/K), plus Gaussian
    noise of standard deviation ``noise`` on the angle (in radians, scaled by r).

    Parameters
    ----------
    n_per_class : int
    num_classes : int, default 3
        K ≥ 2 arms.
    noise : float
        ≥ 0.
    rng : numpy.random.Generator
    turns : float, default 1.0
        Full turns of each arm; more turns make the problem harder.

    Returns
    -------
    X : ndarray of shape (K · n_per_class, 2)
    y : ndarray of shape (K · n_per_class,), int64
    """
    r = rng.uniform(0.0, 1.0, size=(num_classes, n_per_class))  # (K, n)
    k = np.arange(num_classes)[:, None]  # (K, 1)
    theta = 2 * np.pi * (turns * r + k / num_classes) + noise * rng.standard_normal(r.shape)
    X = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=-1).reshape(-1, 2)  # (K n, 2)
    y = np.repeat(np.arange(num_classes, dtype=np.int64), n_per_class)
    return X, y


# Mixtures of Gaussians in the plane (chapter 9): K well-separated modes, the test a generative model must pass.

@checked(modes="count", radius="rate")
def gaussian_ring_centres(*, modes=8, radius=2.0):
    """The K centres of :func:`make_gaussian_ring`: μ_k = r (cos 2πk/K, sin 2πk/K), k = 0, …, K − 1.

    Parameters
    ----------
    modes : int, default 8
        K ≥ 1, the number of centres, equally spaced on the circle.
    radius : float, default 2.0
        r > 0, the radius of the circle, centred at the origin.

    Returns
    -------
    centres : ndarray of shape (K, 2)
        Centre 0 at (r, 0), then counter-clockwise.
    """
    angle = 2.0 * np.pi * np.arange(modes) / modes  # (K,) 2πk/K
    return radius * np.column_stack([np.cos(angle), np.sin(angle)])  # (K, 2)


@checked(side="count", spacing="rate")
def gaussian_grid_centres(*, side=5, spacing=2.0):
    """The K = side² centres of :func:`make_gaussian_grid`: a square grid centred at the origin.

    μ_(i, j) = spacing · (i − (side − 1)/2, j − (side − 1)/2) for i, j = 0, …, side − 1; with the defaults the
    coordinates are −4, −2, 0, 2, 4.

    Parameters
    ----------
    side : int, default 5
        Centres per row and per column, ≥ 1.
    spacing : float, default 2.0
        Distance between neighbouring centres, > 0.

    Returns
    -------
    centres : ndarray of shape (side², 2)
        Row k = i · side + j is μ_(i, j): the first coordinate varies slowest.
    """
    coordinate = spacing * (np.arange(side) - (side - 1) / 2.0)  # (side,)
    first, second = np.meshgrid(coordinate, coordinate, indexing="ij")  # (side, side) each
    return np.column_stack([first.ravel(), second.ravel()])  # (side², 2)


def _sample_mixture(n, centres, std, rng):
    """n draws of the equal-weight mixture (1/K) Σ_k N(μ_k, std² I): a component, then Gaussian noise around it."""
    component = rng.integers(0, len(centres), size=n)  # (n,) uniform on 0, …, K − 1
    X = centres[component] + std * rng.standard_normal((n, centres.shape[1]))  # (n, 2)
    return X, component


@checked(n="count", rng="rng", modes="count", radius="rate", std="penalty")
def make_gaussian_ring(n, *, rng, modes=8, radius=2.0, std=0.05):
    """Points from K Gaussians equally spaced on a circle, the "8 Gaussians" test of generative models.

    The density is exactly

        p(x) = (1/K) Σ_k N(x; μ_k, σ² I),   μ_k = r (cos 2πk/K, sin 2πk/K),

    (see :func:`gaussian_ring_centres` and :func:`gaussian_mixture_density`): each point picks a component k
    uniformly at random, independently of the others, then adds isotropic Gaussian noise of standard deviation σ.
    With the defaults the modes are 2r sin(π/8) ≈ 1.53 apart, about 30 standard deviations, so a model that
    drops one (mode collapse) is easy to see and to count.

    Parameters
    ----------
    n : int
        Number of points N ≥ 1.
    rng : numpy.random.Generator
    modes : int, default 8
        K ≥ 1 components.
    radius : float, default 2.0
        r > 0.
    std : float, default 0.05
        σ ≥ 0; 0 puts every point on its centre.

    Returns
    -------
    X : ndarray of shape (N, 2)
    component : ndarray of shape (N,), int64
        The k of each point, 0, …, K − 1 (centre k is row k of ``gaussian_ring_centres(modes=K, radius=r)``).
    """
    centres = gaussian_ring_centres(modes=modes, radius=radius)  # (K, 2)
    return _sample_mixture(n, centres, std, rng)


@checked(n="count", rng="rng", side="count", spacing="rate", std="penalty")
def make_gaussian_grid(n, *, rng, side=5, spacing=2.0, std=0.05):
    """Points from side × side Gaussians on a square grid, the "25 Gaussians" test of generative models.

    The density is exactly

        p(x) = (1/K) Σ_k N(x; μ_k, σ² I),   K = side²,

    with the centres μ_k of :func:`gaussian_grid_centres` (with the defaults, every point of {−4, −2, 0, 2, 4}²):
    each point picks a component k uniformly at random, independently of the others, then adds isotropic Gaussian
    noise of standard deviation σ.

    Parameters
    ----------
    n : int
        Number of points N ≥ 1.
    rng : numpy.random.Generator
    side : int, default 5
        Centres per row and per column, ≥ 1.
    spacing : float, default 2.0
        Distance between neighbouring centres, > 0.
    std : float, default 0.05
        σ ≥ 0; 0 puts every point on its centre.

    Returns
    -------
    X : ndarray of shape (N, 2)
    component : ndarray of shape (N,), int64
        The k of each point, 0, …, side² − 1 (row k of ``gaussian_grid_centres(side=side, spacing=spacing)``).
    """
    centres = gaussian_grid_centres(side=side, spacing=spacing)  # (K, 2)
    return _sample_mixture(n, centres, std, rng)


@checked(X="array (N, d)", centres="array (K, d)", std="rate")
def gaussian_mixture_density(X, centres, *, std):
    """The density p(x) = (1/K) Σ_k N(x; μ_k, σ² I) of an equal-weight mixture of isotropic Gaussians.

    N(x; μ, σ² I) = (2πσ²)^(−d/2) exp(−‖x − μ‖² / (2σ²)) in d dimensions: the exact density of
    :func:`make_gaussian_ring` and :func:`make_gaussian_grid` given their centres, for drawing the truth (e.g. as
    contours on a grid of points) next to a model's samples.

    Parameters
    ----------
    X : array_like of shape (N, d)
        Points at which to evaluate the density.
    centres : array_like of shape (K, d)
        The means μ_k, in the space of the points.
    std : float
        σ > 0.

    Returns
    -------
    density : ndarray of shape (N,)
        Far from every centre it underflows to 0, which is its value to double precision.
    """
    d = X.shape[1]
    squared = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1)  # (N, K) ‖x − μ_k‖²
    normal = np.exp(-squared / (2.0 * std**2)) / (2.0 * np.pi * std**2) ** (d / 2)  # (N, K) N(x; μ_k, σ² I)
    return normal.mean(axis=1)  # (N,) the average over the K components
