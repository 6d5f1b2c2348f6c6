"""Valid examples for the input contract: pca, kmeans and mixture (learning without labels).

Besides the variants derived from the roles, each function is given the bad calls of its own part: a single point,
more clusters or components than points or features, k-means++ on too few distinct points, mixture weights that do
not sum to 1, covariances that are not symmetric or not positive definite, responsibilities that are not
distributions, and an M step or EM run whose covariance collapses onto one point without ``reg_covar``.
"""

import numpy as np

from contract import Example
from implementations.unsupervised import kmeans, mixture, pca

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 3)) @ np.diag([2.0, 1.0, 0.5])  # (N, m) = (8, 3)
ONE_POINT = X[:1]  # (1, 3)
mean, components, d = pca.pca(X)  # (3,), (3, 3), (3,)
variance = pca.explained_variance(d, 8)[0]  # (3,)
Z = pca.project(X, mean, components[:2])  # (8, 2)
W, sigma2 = pca.fit_ppca(X, 1)[1:]  # (3, 1), float
centres = X[[0, 3, 5]]  # (K, m) = (3, 3)
labels = kmeans.assign_clusters(X, centres)[0]  # (8,)
weights = np.array([0.5, 0.3, 0.2])  # (K,)
covs = np.stack([np.eye(3), 2 * np.eye(3), 0.5 * np.eye(3)])  # (K, m, m)
R = mixture.e_step(X, weights, centres, covs)[0]  # (8, 3)
ONE_HOT = np.eye(3)[[0, 1, 1, 1, 1, 1, 1, 1]]  # component 0 holds the single point x⁽⁰⁾
NOT_SPD = np.stack([np.eye(3), np.diag([1.0, 1.0, -1.0]), np.eye(3)])
NOT_SYMMETRIC = np.stack([np.eye(3), np.eye(3) + np.triu(np.ones((3, 3)), 1), np.eye(3)])
R_NEGATIVE = R.copy()
R_NEGATIVE[0, :2] = [1.5, -0.5 - R[0, 2]]
AFFINITY = np.exp(-kmeans.squared_distances(X, X) / 8)  # (8, 8): an RBF Gram matrix of width 2
X_FLAT = np.column_stack([X[:, :2], X[:, 0] + X[:, 1]])  # (8, 3) on a plane through the origin


def _mixture_extras(*, with_data=True):
    """The bad mixture parameters every function of the mixture takes."""
    extra = [("weights that do not sum to 1", {"weights": np.array([0.5, 0.5, 0.5])}, ()),
             ("a weight 0", {"weights": np.array([0.7, 0.3, 0.0])}, ()),
             ("means of another K", {"means": centres[:2]}, ()),
             ("covs not positive definite", {"covs": NOT_SPD}, ()),
             ("covs not symmetric", {"covs": NOT_SYMMETRIC}, ()),
             ("covs of the wrong size", {"covs": np.stack([np.eye(2)] * 3)}, ())]
    if with_data:
        extra.append(("points of another m", {"X": X[:, :2]}, ()))
    return extra


_MIXTURE_ROLES = {"X": "array", "weights": "array", "means": "array", "covs": "array:any-nd"}
_BAD_Q = [("rows that do not sum to 1", {"q": 2 * R}, ()), ("a negative entry", {"q": R_NEGATIVE}, ()),
          ("q of another K", {"q": R[:, :2]}, ())]


def _mixture(function, **more):
    return lambda: (function, {"X": X, "weights": weights, "means": centres, "covs": covs, **more})


EXAMPLES = {
    "implementations.unsupervised.pca.pca": Example(
        build=lambda: (pca.pca, {"X": X}), roles={"X": "array"},
        extra=[("a single point", {"X": ONE_POINT}, ())]),
    "implementations.unsupervised.pca.explained_variance": Example(
        build=lambda: (pca.explained_variance, {"singular_values": d, "N": 8}),
        roles={"singular_values": "array", "N": "count"},
        extra=[("all zero", {"singular_values": np.zeros(3)}, ()), ("a negative value", {"singular_values": -d}, ()),
               ("a single point", {"N": 1}, ())]),
    "implementations.unsupervised.pca.project": Example(
        build=lambda: (pca.project, {"X": X, "mean": mean, "components": components[:2]}),
        roles={"X": "array", "mean": "array", "components": "array"},
        extra=[("a mean of another m", {"mean": mean[:2]}, ()),
               ("components of another m", {"components": components[:2, :2]}, ())]),
    "implementations.unsupervised.pca.reconstruct": Example(
        build=lambda: (pca.reconstruct, {"Z": Z, "mean": mean, "components": components[:2]}),
        roles={"Z": "array", "mean": "array", "components": "array"},
        extra=[("codes of another k", {"Z": Z[:, :1]}, ()), ("a mean of another m", {"mean": mean[:2]}, ())]),
    "implementations.unsupervised.pca.reconstruction_error": Example(
        build=lambda: (pca.reconstruction_error, {"X": X, "mean": mean, "components": components[:2]}),
        roles={"X": "array", "mean": "array", "components": "array"},
        extra=[("components of another m", {"components": components[:2, :2]}, ())]),
    "implementations.unsupervised.pca.whiten": Example(
        build=lambda: (pca.whiten, {"X": X, "mean": mean, "components": components[:2], "variance": variance[:2]}),
        roles={"X": "array", "mean": "array", "components": "array", "variance": "array"},
        extra=[("a variance 0", {"variance": np.array([1.0, 0.0])}, ()),
               ("a variance per discarded component too", {"variance": variance}, ())]),
    "implementations.unsupervised.pca.fit_ppca": Example(
        build=lambda: (pca.fit_ppca, {"X": X, "k": 1}), roles={"X": "array", "k": "count"},
        extra=[("k = m, nothing left for the noise", {"k": 3}, ()), ("a single point", {"X": ONE_POINT}, ()),
               ("k larger than N", {"X": X[:2], "k": 2}, ())]),
    "implementations.unsupervised.pca.ppca_log_likelihood": Example(
        build=lambda: (pca.ppca_log_likelihood, {"X": X, "mean": mean, "W": W, "sigma2": sigma2}),
        roles={"X": "array", "mean": "array", "W": "array", "sigma2": "rate"},
        extra=[("W of another m", {"W": W[:2]}, ())]),
    "implementations.unsupervised.kmeans.squared_distances": Example(
        build=lambda: (kmeans.squared_distances, {"X": X, "centres": centres}),
        roles={"X": "array", "centres": "array"},
        extra=[("centres of another m", {"centres": centres[:, :2]}, ())]),
    "implementations.unsupervised.kmeans.assign_clusters": Example(
        build=lambda: (kmeans.assign_clusters, {"X": X, "centres": centres}),
        roles={"X": "array", "centres": "array"},
        extra=[("centres of another m", {"centres": centres[:, :2]}, ())]),
    "implementations.unsupervised.kmeans.update_centres": Example(
        build=lambda: (kmeans.update_centres, {"X": X, "labels": labels, "centres": centres}),
        roles={"X": "array", "labels": "labels:3:X", "centres": "array"}),
    "implementations.unsupervised.kmeans.lloyd": Example(
        build=lambda: (kmeans.lloyd, {"X": X, "centres": centres, "max_iter": 10}),
        roles={"X": "array", "centres": "array", "max_iter": "count"},
        extra=[("K larger than N", {"centres": np.vstack([X, X[:1] + 1.0])}, ()),
               ("a single point", {"X": ONE_POINT, "centres": ONE_POINT}, ())]),
    "implementations.unsupervised.kmeans.seeding_probabilities": Example(
        build=lambda: (kmeans.seeding_probabilities, {"X": X, "centres": centres[:1]}),
        roles={"X": "array", "centres": "array"},
        extra=[("centres of another m", {"centres": centres[:1, :2]}, ())]),
    "implementations.unsupervised.kmeans.kmeans_plus_plus": Example(
        build=lambda: (kmeans.kmeans_plus_plus, {"X": X, "K": 3, "rng": np.random.default_rng(0)}),
        roles={"X": "array", "K": "count", "rng": "rng"},
        extra=[("K larger than N", {"K": 9}, ()), ("fewer distinct points than K", {"X": np.repeat(X[:2], 4, 0)}, ()),
               ("a single point", {"X": ONE_POINT, "K": 1}, ())]),
    "implementations.unsupervised.kmeans.kmeans": Example(
        build=lambda: (kmeans.kmeans, {"X": X, "K": 3, "rng": np.random.default_rng(0), "n_init": 2,
                                       "init": "random", "max_iter": 20}),
        roles={"X": "array", "K": "count", "rng": "rng", "n_init": "count", "max_iter": "count"},
        extra=[("K larger than N", {"K": 9}, ()), ("an unknown seeding", {"init": "kmeans++"}, ()),
               ("a single point", {"X": ONE_POINT, "K": 1}, ())]),
    "implementations.unsupervised.kmeans.silhouette_samples": Example(
        build=lambda: (kmeans.silhouette_samples, {"X": X, "labels": labels}),
        roles={"X": "array", "labels": "labels::X"},
        extra=[("a single cluster", {"labels": np.zeros(8, dtype=int)}, ()),
               ("every point its own cluster", {"labels": np.arange(8)}, ())]),
    "implementations.unsupervised.kmeans.silhouette_score": Example(
        build=lambda: (kmeans.silhouette_score, {"X": X, "labels": labels}),
        roles={"X": "array", "labels": "labels::X"},
        extra=[("a single cluster", {"labels": np.zeros(8, dtype=int)}, ())]),
    "implementations.unsupervised.kmeans.adjusted_rand_index": Example(
        build=lambda: (kmeans.adjusted_rand_index, {"labels_true": labels, "labels_pred": labels[::-1]}),
        roles={"labels_true": "labels", "labels_pred": "labels::labels_true"},
        extra=[("a single point", {"labels_true": labels[:1], "labels_pred": labels[:1]}, ()),
               ("labels_pred of another N", {"labels_pred": labels[:5]}, ())]),
    "implementations.unsupervised.kmeans.spectral_embedding": Example(
        build=lambda: (kmeans.spectral_embedding, {"gram": AFFINITY, "K": 2}),
        roles={"gram": "array", "K": "count"},
        extra=[("K larger than N", {"K": 9}, ()),
               ("not symmetric", {"gram": AFFINITY + np.triu(np.ones((8, 8)), 1)}, ()),
               ("a negative affinity", {"gram": AFFINITY - 0.5}, ()), ("an isolated point", {"gram": np.eye(8)}, ())]),
    "implementations.unsupervised.mixture.gaussian_log_density": Example(
        build=lambda: (mixture.gaussian_log_density, {"X": X, "means": centres, "covs": covs}),
        roles={"X": "array", "means": "array", "covs": "array:any-nd"},
        extra=[e for e in _mixture_extras() if "weight" not in e[0]]),
    "implementations.unsupervised.mixture.e_step": Example(
        build=_mixture(mixture.e_step), roles=_MIXTURE_ROLES, extra=_mixture_extras()),
    "implementations.unsupervised.mixture.m_step": Example(
        build=lambda: (mixture.m_step, {"X": X, "R": R, "reg_covar": 1e-6}),
        roles={"X": "array", "R": "aligned:X", "reg_covar": "penalty"},
        extra=[("a component on a single point and reg_covar 0", {"reg_covar": 0.0, "R": ONE_HOT}, ()),
               ("rows that do not sum to 1", {"R": 2 * R}, ()), ("a negative entry", {"R": R_NEGATIVE}, ()),
               ("more components than points", {"R": np.full((2, 3), 1 / 3), "X": X[:2]}, ())]),
    "implementations.unsupervised.mixture.log_likelihood": Example(
        build=_mixture(mixture.log_likelihood), roles=_MIXTURE_ROLES, extra=_mixture_extras()),
    "implementations.unsupervised.mixture.elbo": Example(
        build=_mixture(mixture.elbo, q=R), roles={**_MIXTURE_ROLES, "q": "aligned:X"},
        extra=_mixture_extras() + _BAD_Q),
    "implementations.unsupervised.mixture.posterior_kl": Example(
        build=_mixture(mixture.posterior_kl, q=R), roles={**_MIXTURE_ROLES, "q": "aligned:X"},
        extra=_mixture_extras() + _BAD_Q),
    "implementations.unsupervised.mixture.fit_gmm": Example(
        build=_mixture(mixture.fit_gmm, reg_covar=0.1, max_iter=3, tol=1e-3),
        roles={**_MIXTURE_ROLES, "reg_covar": "penalty", "max_iter": "count", "tol": "penalty"},
        extra=[*_mixture_extras(),
               ("a component collapsing onto one point and reg_covar 0",
                {"reg_covar": 0.0, "X": np.vstack([X[1:], [[40.0, 40.0, 40.0]]]),
                 "means": np.vstack([centres[:2], [[40.0, 40.0, 40.0]]]),
                 "covs": np.stack([np.eye(3), np.eye(3), 0.01 * np.eye(3)])}, ()),
               ("more components than points", {"X": X[:2]}, ()),
               ("a single point", {"X": ONE_POINT}, ())]),
    "implementations.unsupervised.mixture.sample_gmm": Example(
        build=lambda: (mixture.sample_gmm, {"weights": weights, "means": centres, "covs": covs, "n": 5,
                                            "rng": np.random.default_rng(0)}),
        roles={"weights": "array", "means": "array", "covs": "array:any-nd", "n": "count", "rng": "rng"},
        extra=_mixture_extras(with_data=False)),
    "implementations.unsupervised.mixture.num_parameters": Example(
        build=lambda: (mixture.num_parameters, {"K": 3, "m": 2}), roles={"K": "count", "m": "count"}),
    "implementations.unsupervised.mixture.bic": Example(
        build=_mixture(mixture.bic), roles=_MIXTURE_ROLES, extra=_mixture_extras()),
}

assert X_FLAT.shape == X.shape  # kept for the flat-data call of fit_ppca below
EXAMPLES["implementations.unsupervised.pca.fit_ppca"].extra.append(
    ("data on a plane, k = 2: no variance left for the noise", {"X": X_FLAT, "k": 2}, ()))
