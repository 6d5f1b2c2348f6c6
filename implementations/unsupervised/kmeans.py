"""k-means: Lloyd's algorithm, k-means++ seeding, restarts, and the silhouette that scores a clustering.

k-means looks for K centres c₁, …, c_K and an assignment zᵢ of every point to one of them that minimise the
objective (scikit-learn's inertia) J = Σᵢ ‖x⁽ⁱ⁾ − c_{zᵢ}‖². Lloyd's algorithm alternates two steps, each of which
can only lower J: assign every point to its nearest centre, then move every centre to the mean of its points.
Two tools go with it: the adjusted Rand index, which scores a clustering against a known grouping, and the spectral
embedding, in which k-means finds clusters that are not round.
"""

import numpy as np

from .._contract import checked
from ._checks import (
    affinity_matrix,
    centres_at_most_points,
    distinct_points_for_clusters,
    pairs_to_compare,
    scorable_clustering,
)

__all__ = ["squared_distances", "assign_clusters", "update_centres", "lloyd", "seeding_probabilities",
           "kmeans_plus_plus", "kmeans", "silhouette_samples", "silhouette_score", "adjusted_rand_index",
           "spectral_embedding"]


@checked(X="array (N, m)", centres="array (K, m)")
def squared_distances(X, centres):
    """The squared Euclidean distances ‖x⁽ⁱ⁾ − c_k‖² = ‖x⁽ⁱ⁾‖² − 2x⁽ⁱ⁾ᵀc_k + ‖c_k‖² from every point to every centre.

    One matrix product instead of N K differences of m coordinates (twenty times faster on the digits); round-off can
    take a distance near 0 slightly below it, so the result is clipped at 0. Where an exact distance matters (the
    objective, or a point that already is a centre), the functions below recompute it from the difference.

    Parameters
    ----------
    X : array_like of shape (N, m)
    centres : array_like of shape (K, m)

    Returns
    -------
    D2 : ndarray of shape (N, K)
    """
    D2 = (X**2).sum(axis=1)[:, None] - 2 * X @ centres.T + (centres**2).sum(axis=1)  # (N, 1) − (N, K) + (K,)
    return np.maximum(D2, 0.0)  # (N, K)


def _nearest(X, centres):
    """The index of the nearest centre of each point, and the exact squared distance to it: (N,), (N,)."""
    labels = squared_distances(X, centres).argmin(axis=1)  # (N,)
    return labels, ((X - centres[labels]) ** 2).sum(axis=1)  # (N,), (N,)


@checked(X="array (N, m)", centres="array (K, m)")
def assign_clusters(X, centres):
    """The assignment step: each point goes to its nearest centre, zᵢ = argminₖ ‖x⁽ⁱ⁾ − c_k‖², eqs. (8.8) and (8.9).

    Parameters
    ----------
    X : array_like of shape (N, m)
    centres : array_like of shape (K, m)

    Returns
    -------
    labels : ndarray of shape (N,)
        zᵢ (int64); a tie goes to the centre listed first.
    objective : float
        J = Σᵢ ‖x⁽ⁱ⁾ − c_{zᵢ}‖², the inertia of this assignment.
    """
    labels, d2 = _nearest(X, centres)  # (N,), (N,): ‖x⁽ⁱ⁾ − c_{zᵢ}‖²
    return labels, float(d2.sum())


@checked(X="array (N, m)", centres="array (K, m)", labels="labels (N,) < K")
def update_centres(X, labels, centres):
    """The update step: each centre moves to the mean of its points, c_k = (1/N_k) Σ_{zᵢ = k} x⁽ⁱ⁾, eq. (8.9).

    **Empty clusters.** A centre that received no point has no mean. It moves to the point that lies farthest from
    the centre it was assigned to, zᵢ (the second empty one to the second farthest, and so on), as scikit-learn does:
    that point's term of J drops to 0 at the next assignment, so J still cannot rise.

    Parameters
    ----------
    X : array_like of shape (N, m)
    labels : array_like of shape (N,)
        zᵢ in 0, …, K − 1.
    centres : array_like of shape (K, m)
        The centres the labels were assigned to.

    Returns
    -------
    new_centres : ndarray of shape (K, m)
    """
    K = centres.shape[0]
    counts = np.bincount(labels, minlength=K)  # N_k: (K,)
    onehot = np.eye(K)[labels]  # (N, K)
    new = (onehot.T @ X) / np.maximum(counts, 1)[:, None]  # Σ_{zᵢ = k} x⁽ⁱ⁾ / N_k: (K, m)
    empty = np.flatnonzero(counts == 0)  # (E,)
    if empty.size:
        far = np.argsort(-((X - centres[labels]) ** 2).sum(axis=1), kind="stable")  # by distance to their centre
        new[empty] = X[far[: empty.size]]  # (E, m)
    return new


@checked(X="array (N, m)", centres="array (K, m)", max_iter="count", also=centres_at_most_points)
def lloyd(X, centres, *, max_iter=300):
    """Lloyd's algorithm from the given centres: assignment and update steps until no assignment changes, eq. (8.9).

    J never rises: the assignment step minimises it over the labels for fixed centres, the update step over the
    centres for fixed labels (the mean minimises a sum of squared distances). There are finitely many assignments,
    so the algorithm stops, at a local minimum that depends on the starting centres.

    Parameters
    ----------
    X : array_like of shape (N, m)
    centres : array_like of shape (K, m), K <= N
        The starting centres.
    max_iter : int, default 300
        The most update steps; the result after the last one is returned if assignments still change.

    Returns
    -------
    centres : ndarray of shape (K, m)
    labels : ndarray of shape (N,)
        The assignment to these centres (int64).
    objectives : ndarray of shape (T + 1,)
        J after the first assignment and after each of the T update-and-assignment rounds: never rising.
    """
    labels, J = assign_clusters(X, centres)  # (N,), float
    objectives = [J]
    for _ in range(max_iter):
        centres = update_centres(X, labels, centres)  # (K, m)
        new_labels, J = assign_clusters(X, centres)  # (N,), float
        objectives.append(J)
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
    return centres, new_labels, np.array(objectives)


@checked(X="array (N, m)", centres="array (j, m)")
def seeding_probabilities(X, centres):
    """The k-means++ probabilities p(i) = D(x⁽ⁱ⁾)² / Σₗ D(x⁽ˡ⁾)² that point i becomes the next centre, eq. (8.11).

    D(x) is the distance from x to the nearest centre chosen so far: a point far from every centre is likely to be
    picked, a point that already is a centre never is.

    Parameters
    ----------
    X : array_like of shape (N, m)
    centres : array_like of shape (j, m)
        The centres chosen so far, j >= 1.

    Returns
    -------
    p : ndarray of shape (N,)
        Probabilities that sum to 1 (all 0 if every point already is a centre).
    """
    D2 = _nearest(X, centres)[1]  # D(x⁽ⁱ⁾)², exactly 0 at a centre: (N,)
    return D2 / max(D2.sum(), np.finfo(float).tiny)  # (N,)


@checked(X="array (N, m)", K="count", rng="rng", also=distinct_points_for_clusters)
def kmeans_plus_plus(X, K, rng):
    """k-means++ seeding (Arthur and Vassilvitskii): K starting centres, each drawn with chance ∝ D(x)², eq. (8.11).

    The first centre is a point drawn uniformly; each next one is drawn by :func:`seeding_probabilities`, the squared
    distance to the nearest centre so far ("D² sampling"). In expectation the seeding alone is within a factor
    O(log K) of the best objective.

    Parameters
    ----------
    X : array_like of shape (N, m)
    K : int
        1 <= K <= the number of distinct points of X.
    rng : numpy.random.Generator

    Returns
    -------
    centres : ndarray of shape (K, m)
        K distinct points of X.
    """
    chosen = [int(rng.integers(X.shape[0]))]  # the first centre: uniform
    for _ in range(1, K):
        p = seeding_probabilities(X, X[chosen])  # (N,): ∝ D(x)²
        chosen.append(int(rng.choice(X.shape[0], p=p)))
    return X[chosen].copy()  # (K, m)


@checked(X="array (N, m)", K="count", rng="rng", n_init="count", init={"k-means++", "random"}, max_iter="count",
         also=distinct_points_for_clusters)
def kmeans(X, K, rng, *, n_init=10, init="k-means++", max_iter=300):
    """k-means with restarts: Lloyd's algorithm from ``n_init`` seedings, keeping the run of lowest objective.

    Parameters
    ----------
    X : array_like of shape (N, m)
    K : int
        1 <= K <= the number of distinct points of X.
    rng : numpy.random.Generator
    n_init : int, default 10
        The number of seedings (restarts).
    init : {"k-means++", "random"}, default "k-means++"
        k-means++ (:func:`kmeans_plus_plus`), or K distinct points drawn uniformly.
    max_iter : int, default 300
        The most update steps of each run of :func:`lloyd`.

    Returns
    -------
    centres : ndarray of shape (K, m)
    labels : ndarray of shape (N,)
    objectives : ndarray of shape (T + 1,)
        J along the best run; its last entry is the lowest final objective of all runs.
    """
    distinct = np.unique(X, axis=0)  # (N_distinct, m): random seeding draws K different points
    best = None
    for _ in range(n_init):
        if init == "k-means++":
            start = kmeans_plus_plus(X, K, rng)  # (K, m)
        else:
            start = distinct[rng.choice(distinct.shape[0], size=K, replace=False)]  # (K, m)
        run = lloyd(X, start, max_iter=max_iter)  # (centres, labels, objectives)
        if best is None or run[2][-1] < best[2][-1]:
            best = run
    return best


@checked(X="array (N, m)", labels="labels (N,)", also=scorable_clustering)
def silhouette_samples(X, labels):
    """The silhouette sᵢ = (bᵢ − aᵢ) / max(aᵢ, bᵢ) of every point (Rousseeuw), in [−1, 1], eq. (8.12).

    aᵢ is the mean distance from x⁽ⁱ⁾ to the other points of its cluster, bᵢ the mean distance to the points of the
    nearest other cluster: sᵢ near 1 for a point well inside its cluster, near 0 on a border, negative for a point
    closer to another cluster. A point alone in its cluster gets sᵢ = 0 (as in scikit-learn).

    Parameters
    ----------
    X : array_like of shape (N, m)
    labels : array_like of shape (N,)
        Cluster labels, any integers >= 0; between 2 and N − 1 distinct ones.

    Returns
    -------
    s : ndarray of shape (N,)
    """
    _, z = np.unique(labels, return_inverse=True)  # clusters renumbered 0, …, C − 1: (N,)
    dist = np.sqrt(squared_distances(X, X))  # (N, N)
    np.fill_diagonal(dist, 0.0)  # each point's distance to itself, exactly
    onehot = np.eye(z.max() + 1)[z]  # (N, C)
    size = onehot.sum(axis=0)  # (C,)
    total = dist @ onehot  # Σ of the distances from each point to each cluster: (N, C)
    rows = np.arange(X.shape[0])
    a = total[rows, z] / np.maximum(size[z] - 1, 1)  # mean distance to the others of its cluster: (N,)
    b = np.where(onehot == 1, np.inf, total / size).min(axis=1)  # nearest other cluster: (N,)
    s = (b - a) / np.maximum(np.maximum(a, b), np.finfo(float).tiny)  # (N,)
    return np.where(size[z] > 1, s, 0.0)  # a point alone in its cluster: 0


@checked(X="array (N, m)", labels="labels (N,)", also=scorable_clustering)
def silhouette_score(X, labels):
    """The mean silhouette (1/N) Σᵢ sᵢ of a clustering, from :func:`silhouette_samples`: higher is better, eq. (8.12).

    Parameters
    ----------
    X : array_like of shape (N, m)
    labels : array_like of shape (N,)

    Returns
    -------
    float
    """
    return float(silhouette_samples(X, labels).mean())


@checked(labels_true="labels (N,)", labels_pred="labels (N,)", also=pairs_to_compare)
def adjusted_rand_index(labels_true, labels_pred):
    """The adjusted Rand index of two clusterings (Hubert and Arabie): 1 if they agree, 0 by chance, eq. (8.10).

    With the contingency table n_ab (points in cluster a of the first grouping and b of the second), its row sums n_{a·}
    and column sums n_{·b}, and C(n) = n(n − 1)/2 pairs: the index I = Σ_ab C(n_ab) counts the pairs together in both,
    its expectation for random labels of the same cluster sizes is E[I] = Σ_a C(n_{a·}) Σ_b C(n_{·b}) / C(N), and its
    largest value I_max = ½(Σ_a C(n_{a·}) + Σ_b C(n_{·b})); ARI = (I − E[I]) / (I_max − E[I]).
    The numbering of the clusters does not matter, and two trivial clusterings that agree (both one cluster, or both
    every point alone) score 1, as in scikit-learn.

    Parameters
    ----------
    labels_true : array_like of shape (N,)
        A known grouping (the classes, say), integers >= 0; N >= 2.
    labels_pred : array_like of shape (N,)
        A clustering of the same points.

    Returns
    -------
    float
        At most 1; near 0 for a clustering no better than chance, and it can be negative.
    """
    _, a = np.unique(labels_true, return_inverse=True)  # (N,): the cluster a of each point, 0, …, A − 1
    _, b = np.unique(labels_pred, return_inverse=True)  # (N,): its cluster b in the other grouping, 0, …, B − 1
    n_ab = np.zeros((a.max() + 1, b.max() + 1))  # the contingency table: (A, B)
    np.add.at(n_ab, (a, b), 1.0)

    def pairs(n):
        return n * (n - 1) / 2  # (n choose 2), elementwise

    index = pairs(n_ab).sum()  # I = Σ_ab C(n_ab)
    rows, cols = pairs(n_ab.sum(axis=1)).sum(), pairs(n_ab.sum(axis=0)).sum()  # Σ_a C(n_a·), Σ_b C(n_·b)
    expected = rows * cols / pairs(a.shape[0])  # E[I]
    largest = (rows + cols) / 2  # I_max
    if largest == expected:  # both clusterings trivial (one cluster, or N singletons) and equal
        return 1.0
    return float((index - expected) / (largest - expected))


@checked(gram="array (N, N)", K="count", also=affinity_matrix)
def spectral_embedding(gram, K):
    """The spectral embedding of Ng, Jordan and Weiss: K eigenvectors of Δ^(−1/2) A Δ^(−1/2), eq. (8.13).

    A is the matrix of affinities ``gram`` (an RBF Gram matrix, say) with its diagonal set to 0, and Δ = diag(Σⱼ Aᵢⱼ)
    the degrees. The eigenvectors of the K largest eigenvalues (those of the K smallest of the normalised Laplacian
    I − Δ^(−1/2) A Δ^(−1/2)) are the columns of U (N, K); row i, divided by its length, is the new point of x⁽ⁱ⁾.
    Points joined by chains of large affinities land close together, even when their cluster is not round, and
    k-means on these rows then finds the clusters (spectral clustering).

    Parameters
    ----------
    gram : array_like of shape (N, N)
        Symmetric affinities >= 0; every point has a positive affinity to some other point.
    K : int
        The number of eigenvectors, usually the number of clusters; 1 <= K <= N.

    Returns
    -------
    U : ndarray of shape (N, K)
        One row per point, each of length 1. Each column is determined up to sign (and, for equal eigenvalues, up
        to a rotation): distances between the rows, and so the clusters k-means finds, are not.
    """
    A = gram - np.diag(np.diag(gram))  # affinities between different points only: (N, N)
    degree = A.sum(axis=1)  # the diagonal of Δ: (N,)
    M = A / np.sqrt(np.outer(degree, degree))  # Δ^(−1/2) A Δ^(−1/2): (N, N)
    _, vectors = np.linalg.eigh(M)  # eigenvalues ascending: (N, N)
    U = vectors[:, ::-1][:, :K]  # the K of largest eigenvalue: (N, K)
    return U / np.maximum(np.linalg.norm(U, axis=1, keepdims=True), np.finfo(float).tiny)  # rows of length 1
