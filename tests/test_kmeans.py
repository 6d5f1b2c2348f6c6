"""k-means against scikit-learn and its own guarantees.

scikit-learn's KMeans (test-only), started from the same centres (``init=array, n_init=1``) and run to strict
convergence (``tol=0``), must end at the same centres, labels and inertia; the objective never rises along Lloyd's
iterations; k-means++ draws each next centre with probability proportional to the squared distance (a chi-square
test at a fixed seed with a threshold far above its chance level, which sampling by the plain distance exceeds many
times over); restarts keep the best run; an empty cluster is refilled; the silhouette and the adjusted Rand index
match scikit-learn's; the spectral embedding solves its eigenproblem and separates what scikit-learn's spectral
clustering separates.
"""

import numpy as np
import pytest

from implementations.unsupervised import kmeans

sklearn_cluster = pytest.importorskip("sklearn.cluster")
sklearn_metrics = pytest.importorskip("sklearn.metrics")


def _blobs(N=300, K=4, m=2, seed=0, spread=1.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(K, m)) * 4
    z = rng.integers(K, size=N)
    return centres[z] + rng.normal(size=(N, m)) * spread, z


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lloyd_matches_scikit_learn_from_the_same_start(seed):
    X, _ = _blobs(seed=seed, spread=2.0)  # overlapping blobs: several iterations
    start = X[np.random.default_rng(seed).choice(len(X), size=4, replace=False)]
    centres, labels, objectives = kmeans.lloyd(X, start)
    reference = sklearn_cluster.KMeans(n_clusters=4, init=start, n_init=1, tol=0.0, max_iter=300,
                                       algorithm="lloyd").fit(X)
    assert len(objectives) > 3  # it iterated
    np.testing.assert_array_equal(labels, reference.labels_)
    np.testing.assert_allclose(centres, reference.cluster_centers_, rtol=1e-10, atol=1e-12)
    assert objectives[-1] == pytest.approx(reference.inertia_, rel=1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_the_objective_never_rises(seed):
    X, _ = _blobs(N=400, K=6, m=3, seed=seed, spread=2.5)
    start = X[:6]  # a poor start: many iterations
    _, _, objectives = kmeans.lloyd(X, start)
    assert len(objectives) > 3
    assert (np.diff(objectives) <= 1e-9 * objectives[0]).all()
    assert objectives[-1] < objectives[0]


def test_the_objective_is_the_inertia_of_the_labels_and_centres_returned():
    X, _ = _blobs()
    centres, labels, objectives = kmeans.lloyd(X, X[:4])
    assert objectives[-1] == pytest.approx(((X - centres[labels]) ** 2).sum(), rel=1e-12)
    for k in range(4):  # at convergence each centre is the mean of its points
        np.testing.assert_allclose(centres[k], X[labels == k].mean(axis=0), atol=1e-12)


def test_an_empty_cluster_moves_to_the_farthest_point():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [10.0, 0.0], [11.0, 0.0]])
    centres = np.array([[0.5, 0.0], [10.5, 0.0], [100.0, 0.0]])  # the third gets no point
    labels = kmeans.assign_clusters(X, centres)[0]
    new = kmeans.update_centres(X, labels, centres)
    np.testing.assert_allclose(new[:2], [[0.5, 0.0], [10.5, 0.0]])
    assert new[2].tolist() in ([0.0, 0.0], [1.0, 0.0], [10.0, 0.0], [11.0, 0.0])  # a point of X, 0.5 from its centre
    _, J = kmeans.assign_clusters(X, new)
    assert J < kmeans.assign_clusters(X, centres)[1]


def _pair_frequencies(sampler, X, draws, rng):
    """Counts of the ordered pairs (first, second centre) drawn by ``sampler(X, 2, rng)``, as indices of X."""
    counts = np.zeros((len(X), len(X)))
    for _ in range(draws):
        centres = sampler(X, 2, rng)
        i, j = (int(np.flatnonzero((X == c).all(axis=1))[0]) for c in centres)
        counts[i, j] += 1
    return counts


def _chi_square_against_d2(counts, X):
    """The chi-square statistic of the pair counts against first ~ uniform, second ∝ D² from the first."""
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)  # (N, N)
    expected = counts.sum() * (D2 / D2.sum(axis=1, keepdims=True)) / len(X)  # P(i) P(j | i)
    cells = expected > 0
    assert counts[~cells].sum() == 0  # a point is never drawn twice
    return float(((counts[cells] - expected[cells]) ** 2 / expected[cells]).sum()), int(cells.sum() - 1)


def _d_sampling(X, K, rng):
    """The classic mistake: the next centre drawn with probability ∝ D, the plain distance."""
    chosen = [int(rng.integers(len(X)))]
    for _ in range(1, K):
        D = np.sqrt(((X[:, None, :] - X[chosen][None]) ** 2).sum(axis=-1)).min(axis=1)
        chosen.append(int(rng.choice(len(X), p=D / D.sum())))
    return X[chosen]


def test_kmeans_plus_plus_draws_with_probability_proportional_to_the_squared_distance():
    """Five points on a line, 3000 draws of two centres: 19 degrees of freedom, whose chi-square statistic exceeds
    60 with probability below 10⁻⁵; drawing ∝ D instead of D² gives a statistic above 600."""
    X = np.array([[0.0], [1.0], [2.0], [5.0], [9.0]])
    right, dof = _chi_square_against_d2(_pair_frequencies(kmeans.kmeans_plus_plus, X, 3000,
                                                          np.random.default_rng(0)), X)
    wrong, _ = _chi_square_against_d2(_pair_frequencies(_d_sampling, X, 3000, np.random.default_rng(0)), X)
    assert dof == 19
    assert right < 60
    assert wrong > 600


def test_seeding_probabilities_are_the_normalised_squared_distances_to_the_nearest_centre():
    X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0], [0.0, 1.0]])
    p = kmeans.seeding_probabilities(X, X[[0, 2]])
    D2 = np.array([0.0, 25.0, 0.0, 1.0])
    np.testing.assert_allclose(p, D2 / D2.sum())


def test_kmeans_plus_plus_picks_distinct_points_of_X():
    X, _ = _blobs(N=50)
    X = np.vstack([X, X[:10]])  # duplicates
    for seed in range(20):
        centres = kmeans.kmeans_plus_plus(X, 8, np.random.default_rng(seed))
        assert len(np.unique(centres, axis=0)) == 8
        assert all((X == c).all(axis=1).any() for c in centres)


def test_k_means_plus_plus_beats_random_seeding_on_average():
    X, _ = _blobs(N=600, K=10, m=2, seed=3, spread=0.5)
    single = [kmeans.kmeans(X, 10, np.random.default_rng(s), n_init=1, init="random")[2][-1] for s in range(10)]
    plus = [kmeans.kmeans(X, 10, np.random.default_rng(s), n_init=1)[2][-1] for s in range(10)]
    assert np.mean(plus) < np.mean(single)


def test_restarts_return_the_lowest_final_objective_of_their_runs():
    X, _ = _blobs(N=200, K=5, seed=4, spread=1.5)
    rng = np.random.default_rng(5)
    runs = []
    for _ in range(6):  # the same draws as kmeans makes with n_init=6
        runs.append(kmeans.lloyd(X, kmeans.kmeans_plus_plus(X, 5, rng))[2][-1])
    _, _, objectives = kmeans.kmeans(X, 5, np.random.default_rng(5), n_init=6)
    assert objectives[-1] == pytest.approx(min(runs), rel=1e-12)


def test_silhouette_matches_scikit_learn():
    X, z = _blobs(N=120, K=3, seed=6, spread=1.5)
    z[:3] = [7, 7, 9]  # labels that are not 0, …, C − 1, and a cluster of one point (9)
    np.testing.assert_allclose(kmeans.silhouette_samples(X, z), sklearn_metrics.silhouette_samples(X, z), atol=1e-10)
    assert kmeans.silhouette_score(X, z) == pytest.approx(sklearn_metrics.silhouette_score(X, z), abs=1e-10)


def test_bad_input_is_refused_clearly():
    X, _ = _blobs(N=10)
    with pytest.raises(ValueError, match="K = 11 clusters but X has only 10 points"):
        kmeans.kmeans(X, 11, np.random.default_rng(0))
    with pytest.raises(ValueError, match="single point"):
        kmeans.kmeans(X[:1], 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="NaN"):
        kmeans.lloyd(np.where(np.eye(10, 2, dtype=bool), np.nan, X), X[:2])
    with pytest.raises(ValueError, match="distinct points"):
        kmeans.kmeans_plus_plus(np.repeat(X[:2], 5, axis=0), 3, np.random.default_rng(0))


@pytest.mark.parametrize("seed", range(4))
def test_adjusted_rand_index_matches_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(4, size=60) * 3  # labels that are not 0, …, C − 1
    noisy = np.where(rng.random(60) < 0.3, rng.integers(5, size=60), truth)  # 30 % relabelled at random
    for pred in (noisy, rng.integers(3, size=60), truth, np.zeros(60, dtype=int)):
        assert kmeans.adjusted_rand_index(truth, pred) == pytest.approx(
            sklearn_metrics.adjusted_rand_score(truth, pred), abs=1e-12)


def test_adjusted_rand_index_ignores_the_numbering_and_scores_trivial_agreement_1():
    a = np.array([0, 0, 1, 1, 2, 2])
    assert kmeans.adjusted_rand_index(a, (a + 1) % 3 + 5) == pytest.approx(1.0)
    assert kmeans.adjusted_rand_index(np.zeros(5, dtype=int), np.zeros(5, dtype=int)) == 1.0
    assert kmeans.adjusted_rand_index(np.arange(5), np.arange(5)) == 1.0
    with pytest.raises(ValueError, match="at least 2"):
        kmeans.adjusted_rand_index([0], [0])


def _rbf(X, s):
    return np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1) / (2 * s**2))  # (N, N)


def test_spectral_embedding_solves_the_normalised_eigenproblem():
    X, _ = _blobs(N=80, K=3, seed=3)
    K = _rbf(X, 1.5)
    U = kmeans.spectral_embedding(K, 3)
    A = K - np.diag(np.diag(K))
    d = A.sum(axis=1)
    L = A / np.sqrt(np.outer(d, d))  # Δ^(−1/2) A Δ^(−1/2), built here from its definition
    values, vectors = np.linalg.eigh(L)
    top = vectors[:, -3:]  # (80, 3): an orthonormal basis of the eigenspace of the three largest eigenvalues
    rescaled = U * np.linalg.norm(top, axis=1, keepdims=True)  # undo the rows' normalisation
    np.testing.assert_allclose(top @ (top.T @ rescaled), rescaled, atol=1e-8)  # its columns lie in that eigenspace
    np.testing.assert_allclose(np.abs(rescaled.T @ rescaled), np.eye(3), atol=1e-8)  # and are orthonormal
    np.testing.assert_allclose(np.linalg.norm(U, axis=1), 1.0, atol=1e-12)
    assert values[-1] == pytest.approx(1.0)  # the largest eigenvalue is 1, with the eigenvector √d


def test_spectral_clustering_separates_the_moons_as_scikit_learn_does():
    rng = np.random.default_rng(0)
    t = rng.uniform(0, np.pi, size=200)
    upper = np.column_stack([np.cos(t[:100]), np.sin(t[:100])])
    lower = np.column_stack([1 - np.cos(t[100:]), 0.5 - np.sin(t[100:])])
    X = np.vstack([upper, lower]) + rng.normal(size=(200, 2)) * 0.05
    truth = np.repeat([0, 1], 100)
    K = _rbf(X, 0.1)
    labels = kmeans.kmeans(kmeans.spectral_embedding(K, 2), 2, np.random.default_rng(0))[1]
    reference = sklearn_cluster.SpectralClustering(2, affinity="precomputed", random_state=0).fit(K).labels_
    assert kmeans.adjusted_rand_index(truth, labels) == 1.0
    assert kmeans.adjusted_rand_index(reference, labels) == 1.0
    assert kmeans.adjusted_rand_index(truth, kmeans.kmeans(X, 2, np.random.default_rng(0))[1]) < 0.6  # k-means fails


def test_spectral_embedding_refuses_what_is_not_an_affinity_matrix():
    X, _ = _blobs(N=10)
    K = _rbf(X, 1.0)
    with pytest.raises(ValueError, match="symmetric"):
        kmeans.spectral_embedding(K + np.triu(np.ones((10, 10)), 1), 2)
    with pytest.raises(ValueError, match=">= 0"):
        kmeans.spectral_embedding(K - 0.5, 2)
    with pytest.raises(ValueError, match="Widen the kernel"):
        kmeans.spectral_embedding(np.eye(10), 2)
    with pytest.raises(ValueError, match="K <= N"):
        kmeans.spectral_embedding(K, 11)
