"""The checks of the chapter on learning without labels that no role of the input contract describes, each once.

Checks of several arguments (``also=``): enough points for a variance, a number of components or clusters that the
data can carry, distinct points for k-means++, clusterings that a silhouette can score, mixture weights that form a
distribution, covariances that are symmetric and positive definite, responsibilities whose rows are distributions.
And the errors of EM: an M step whose covariance collapsed, which names ``reg_covar`` as the fix, and a log-likelihood
that fell without regularisation.
"""

import numpy as np


def _points(N):
    return "1 point" if N == 1 else f"{N} points"


def at_least_two_points(X):
    """X (N, m) has N >= 2 rows: one point has no variance, no direction and no cluster structure."""
    if X.shape[0] < 2:
        raise ValueError(f"X has a single point (shape {X.shape}); expected at least 2 rows. One point has no "
                         "variance to explain and no clusters to find: pass the whole data set, one point per row.")


def variance_to_explain(singular_values, N):
    """Singular values of data of N >= 2 points, not all 0: a total variance to share out."""
    if N < 2:
        raise ValueError(f"N = {N}, but a variance needs at least 2 points; pass the number of rows of the data.")
    if not (singular_values > 0).any():
        raise ValueError("singular_values are all 0: the data have no variance to explain (every point is the mean). "
                         "Check the data, or drop the constant features.")
    if (singular_values < 0).any():
        raise ValueError("singular_values must be >= 0, as singular values are; pass those of pca(X).")


def ppca_components(X, k):
    """Probabilistic PCA keeps k < m components, so that m − k directions are left to estimate the noise σ²."""
    at_least_two_points(X)
    if k >= X.shape[1]:
        raise ValueError(f"k = {k} but X has m = {X.shape[1]} features; probabilistic PCA needs k < m, since σ² is "
                         f"the mean variance of the m − k discarded directions. Pass k <= {X.shape[1] - 1}.")


def no_discarded_variance(k):
    """The error of probabilistic PCA on data that lie in a k-dimensional affine subspace: σ² = 0."""
    return ValueError(f"the points of X lie in a {k}-dimensional affine subspace: the variance σ² of the discarded "
                      f"directions is 0, so a probabilistic PCA with k={k} has no density. Pass a smaller k.")


def components_match(components, variance):
    """One variance per component (row) of ``components``."""
    if variance.shape[0] != components.shape[0]:
        raise ValueError(f"variance has {variance.shape[0]} entries but components has {components.shape[0]} rows; "
                         "expected one variance per component: pass variance[:k] with components[:k].")
    if (variance <= 0).any():
        j = int(np.argmax(variance <= 0))
        raise ValueError(f"variance[{j}] = {variance[j]:g}, but whitening divides by the square root of each "
                         "component's variance, which must be > 0. Keep only the components with a variance > 0.")


def clusters_at_most_points(X, K, source="K"):
    """K clusters (or components) of the N rows of X need K <= N; ``source`` names the argument that gives K."""
    at_least_two_points(X)
    if K > X.shape[0]:
        given = "" if source == "K" else f" (from {source})"
        raise ValueError(f"K = {K} clusters{given} but X has only {_points(X.shape[0])}; expected K <= N = "
                         f"{X.shape[0]}, since every cluster needs a point of its own.")


def distinct_points_for_clusters(X, K):
    """k-means++ and random seeding pick K distinct points of X as centres: X needs K distinct rows."""
    clusters_at_most_points(X, K)
    distinct = np.unique(X, axis=0).shape[0]  # the number of distinct rows
    if distinct < K:
        raise ValueError(f"K = {K} clusters but X has only {distinct} distinct points (of {X.shape[0]} rows); "
                         f"expected K <= {distinct}: the seeding picks K distinct points as centres.")


def centres_at_most_points(X, centres):
    """As many centres (K, m) as points of X at most."""
    clusters_at_most_points(X, centres.shape[0], "the rows of centres")


def one_label_per_point(X, labels):
    """One cluster label per row of X."""
    if labels.shape[0] != X.shape[0]:
        raise ValueError(f"labels has {labels.shape[0]} entries but X has {_points(X.shape[0])}; expected one "
                         "cluster label per row of X.")


def scorable_clustering(X, labels):
    """A silhouette compares a point's own cluster with the nearest other one: 2 <= clusters <= N − 1."""
    one_label_per_point(X, labels)
    count = np.unique(labels).size
    if not 2 <= count <= X.shape[0] - 1:
        raise ValueError(f"labels holds {count} cluster(s) for {_points(X.shape[0])}; a silhouette needs between 2 "
                         f"and N − 1 = {X.shape[0] - 1} clusters, since each point is compared with its own cluster "
                         "and with the nearest other one.")


def pairs_to_compare(labels_true, labels_pred):
    """Two clusterings of the same N >= 2 points: the adjusted Rand index counts pairs of points."""
    if labels_true.shape[0] < 2:
        raise ValueError("labels_true holds a single point; the adjusted Rand index compares pairs of points and "
                         "needs at least 2. Pass the labels of the whole data set.")


def affinity_matrix(gram, K):
    """gram (N, N) holds affinities: symmetric, >= 0, every point with a positive affinity to another; 1 <= K <= N."""
    if K > gram.shape[0]:
        raise ValueError(f"K = {K} eigenvectors but gram holds only N = {gram.shape[0]} points; expected K <= N.")
    asymmetry = np.abs(gram - gram.T).max()
    if asymmetry > 1e-10 * max(np.abs(gram).max(), np.finfo(float).tiny):
        raise ValueError("gram must be symmetric, as a Gram matrix of a kernel is; received max abs(gram − gramᵀ) = "
                         f"{asymmetry:.3g}. Pass kernels.rbf_kernel(X, X, width=s).")
    if (gram < 0).any():
        raise ValueError(f"gram must hold affinities >= 0; its smallest entry is {gram.min():.3g}. Use a kernel whose "
                         "values are >= 0, such as the RBF kernel.")
    degree = gram.sum(axis=1) - np.diag(gram)  # (N,): each point's affinity to the others
    if (degree <= 0).any():
        i = int(np.argmax(degree <= 0))
        raise ValueError(f"point {i} has affinity 0 to every other point (its row of gram is 0 off the diagonal), so "
                         "the normalised affinities divide by 0. Widen the kernel (a larger width s) or drop the "
                         "isolated point.")


def mixture_weights(weights):
    """Mixture weights π (K,) are > 0 and sum to 1."""
    if (weights <= 0).any():
        k = int(np.argmax(weights <= 0))
        raise ValueError(f"weights must hold mixture weights > 0; received weights[{k}] = {weights[k]:g}. Drop the "
                         "component, or give it a small weight.")
    if abs(weights.sum() - 1.0) > 1e-8:
        raise ValueError(f"weights must sum to 1, as the mixture weights πₖ = p(z = k) do; received a sum of "
                         f"{weights.sum():.6g}. Divide them by their sum first.")


def spd_covariances(covs):
    """Each covs[k] (m, m) is symmetric and positive definite, so that N(μₖ, Σₖ) has a density."""
    asymmetry = np.abs(covs - covs.swapaxes(-1, -2)).max(axis=(1, 2))  # (K,)
    scale = np.abs(covs).max(axis=(1, 2))  # (K,)
    if (asymmetry > 1e-10 * scale).any():
        k = int(np.argmax(asymmetry > 1e-10 * scale))
        raise ValueError(f"covs[{k}] must be symmetric, as every covariance matrix is; received max abs(Σ − Σᵀ) = "
                         f"{asymmetry[k]:.3g}. Symmetrise it with (S + S.T) / 2.")
    smallest = np.linalg.eigvalsh(covs)[:, 0]  # (K,)
    if (smallest <= 0).any():
        k = int(np.argmax(smallest <= 0))
        raise ValueError(f"covs[{k}] must be positive definite; its smallest eigenvalue is {smallest[k]:.3g}. A "
                         "Gaussian with a singular covariance has no density: add a small multiple of the identity.")


def mixture_parameters(weights, means, covs):
    """The parameters of one mixture: weights π (K,), means (K, m), covariances (K, m, m)."""
    mixture_weights(weights)
    spd_covariances(covs)


def mixture_fits_data(X, weights, means, covs):
    """A mixture of K components fitted to N >= K points, with valid parameters."""
    clusters_at_most_points(X, means.shape[0], "the rows of means")
    mixture_parameters(weights, means, covs)


def _distributions_per_point(X, R, name):
    """R (N, K): one row per point of X, each a distribution over the K <= N components."""
    if R.shape[0] != X.shape[0]:
        raise ValueError(f"{name} has {R.shape[0]} rows but X has {_points(X.shape[0])}; expected one row per point.")
    clusters_at_most_points(X, R.shape[1], f"the columns of {name}")
    if (R < 0).any():
        i, k = np.argwhere(R < 0)[0]
        raise ValueError(f"{name} must hold probabilities >= 0; received {name}[{i}, {k}] = {R[i, k]:g}. Each row is "
                         "a distribution over the components, such as p(z = k | x⁽ⁱ⁾).")
    sums = R.sum(axis=1)  # (N,)
    if (np.abs(sums - 1.0) > 1e-8).any():
        i = int(np.argmax(np.abs(sums - 1.0) > 1e-8))
        raise ValueError(f"each row of {name} must sum to 1; row {i} sums to {sums[i]:.6g}. Normalise the rows: "
                         f"{name} / {name}.sum(axis=1, keepdims=True).")


def responsibilities_for_data(X, R):
    """Responsibilities R (N, K): one distribution over the K <= N components per point of X."""
    _distributions_per_point(X, R, "R")


def distributions_for_data(X, q):
    """Distributions q (N, K) over the K <= N components, one per point of X."""
    _distributions_per_point(X, q, "q")


def refuse_collapse(covs, reg_covar):
    """``covs`` (K, m, m) from an M step, if every one is positive definite; else the error that names reg_covar.

    A component whose responsibilities concentrate on fewer than m + 1 points (one point, say) gets a singular
    covariance: its density grows without bound as the covariance shrinks, and the log-likelihood with it.
    """
    eigenvalues = np.linalg.eigvalsh(covs)  # (K, m), ascending
    largest = np.maximum(eigenvalues[:, -1], np.finfo(float).tiny)  # (K,)
    singular = eigenvalues[:, 0] <= covs.shape[-1] * np.finfo(float).eps * largest  # (K,)
    if singular.any():
        k = int(np.argmax(singular))
        raise ValueError(f"the covariance of component {k} became singular (smallest eigenvalue "
                         f"{eigenvalues[k, 0]:.3g}) with reg_covar={reg_covar:g}: the component collapsed onto fewer "
                         "points than dimensions, where the likelihood grows without bound. Pass reg_covar > 0 "
                         "(e.g. reg_covar=1e-6, scikit-learn's default), which adds it to every covariance's diagonal.")
    return covs


def likelihood_fell(iteration, before, after):
    """The error of EM without regularisation whose log-likelihood fell, which cannot happen in exact arithmetic."""
    return RuntimeError(f"the mean log-likelihood fell at iteration {iteration}, from {before:.10g} to {after:.10g}, "
                        "with reg_covar=0, where every EM step raises it or leaves it: the computation lost accuracy "
                        "(a covariance close to singular, say). Pass a small reg_covar > 0 (1e-6), or rescale X.")
