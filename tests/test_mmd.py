"""Tests of implementations.generative.mmd against double loops, a loop over the points, scikit-learn's kernel, the
closed form of MMD² between two Gaussians, simulation of the estimators' expectations, hand-built samples for the mode
metrics, and the shipped comparison of chapter 9's models."""

import numpy as np
import pytest

from implementations.data.synthetic import gaussian_ring_centres, make_gaussian_ring
from implementations.generative.mmd import (
    assign_to_modes,
    high_quality_fraction,
    load_ring_comparison,
    median_bandwidth,
    mmd2,
    mode_std,
    modes_covered,
)


def naive_kernel(x, y, sigma):
    return np.exp(-np.sum((x - y) ** 2) / (2 * sigma**2))


def naive_mmd2(X, Y, sigma, unbiased):
    """Gretton et al. (2012), Lemma 6 (unbiased) and eq. (5) (biased), one pair at a time."""
    m, n = len(X), len(Y)
    xx = sum(naive_kernel(X[i], X[j], sigma) for i in range(m) for j in range(m) if i != j or not unbiased)
    yy = sum(naive_kernel(Y[i], Y[j], sigma) for i in range(n) for j in range(n) if i != j or not unbiased)
    xy = sum(naive_kernel(X[i], Y[j], sigma) for i in range(m) for j in range(n))
    if unbiased:
        return xx / (m * (m - 1)) + yy / (n * (n - 1)) - 2 * xy / (m * n)
    return xx / m**2 + yy / n**2 - 2 * xy / (m * n)


def expected_kernel(mu, variance, sigma, d):
    """E exp(−‖z‖² / (2σ²)) for z ~ N(mu, variance · I_d), a Gaussian integral.

    Per coordinate, ∫ N(z; μ, v) exp(−z²/(2σ²)) dz = √(σ²/(σ² + v)) exp(−μ²/(2(σ² + v))): the product of two Gaussians
    in z is a Gaussian times the constant N(μ; 0, σ² + v) · √(2πσ²). The d coordinates are independent.
    """
    return (sigma**2 / (sigma**2 + variance)) ** (d / 2) * np.exp(-np.sum(np.square(mu)) / (2 * (sigma**2 + variance)))


def gaussian_mmd2(mu_p, s_p, mu_q, s_q, sigma):
    """MMD² between P = N(mu_p, s_p² I) and Q = N(mu_q, s_q² I) for the Gaussian kernel of bandwidth σ, exactly.

    MMD² = E k(x, x') + E k(y, y') − 2 E k(x, y) with x, x' ~ P, y, y' ~ Q independent. x − x' ~ N(0, 2 s_p² I),
    y − y' ~ N(0, 2 s_q² I) and x − y ~ N(mu_p − mu_q, (s_p² + s_q²) I), so each term is :func:`expected_kernel`.
    """
    d = len(mu_p)
    return (expected_kernel(np.zeros(d), 2 * s_p**2, sigma, d) + expected_kernel(np.zeros(d), 2 * s_q**2, sigma, d)
            - 2 * expected_kernel(np.subtract(mu_p, mu_q), s_p**2 + s_q**2, sigma, d))


# --- the estimators against loops -------------------------------------------------------------------

@pytest.mark.parametrize("unbiased", [True, False])
@pytest.mark.parametrize(("m", "n", "D"), [(2, 2, 1), (5, 8, 2), (9, 4, 3)])
def test_mmd2_matches_a_double_loop(m, n, D, unbiased):
    rng = np.random.default_rng(10 * m + n)
    X, Y = rng.normal(size=(m, D)), rng.normal(0.5, 1.5, size=(n, D))
    expected = naive_mmd2(X, Y, 1.3, unbiased)
    np.testing.assert_allclose(mmd2(X, Y, bandwidth=1.3, unbiased=unbiased), expected, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("unbiased", [True, False])
def test_mmd2_is_symmetric_and_the_biased_one_vanishes_on_one_sample(unbiased):
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(12, 2)), rng.normal(size=(7, 2)) + 1.0
    assert mmd2(X, Y, bandwidth=0.8, unbiased=unbiased) == pytest.approx(mmd2(Y, X, bandwidth=0.8,
                                                                              unbiased=unbiased), abs=1e-14)
    assert mmd2(X, X, bandwidth=0.8, unbiased=False) == pytest.approx(0.0, abs=1e-13)  # every term of V cancels
    assert mmd2(X, X, bandwidth=0.8, unbiased=True) < 0  # U drops the 1s of the diagonal from the two within-terms


# --- the estimators' expectations, by simulation -------------------------------------------------------------------

def _repeat_mmd2(draw_x, draw_y, repeats, unbiased, sigma, seed):
    rng = np.random.default_rng(seed)
    return np.array([mmd2(draw_x(rng), draw_y(rng), bandwidth=sigma, unbiased=unbiased) for _ in range(repeats)])


def test_unbiased_estimate_averages_to_zero_and_the_biased_one_to_its_bias_when_p_equals_q():
    """P = Q = N(0, I₂), m = n = 10, σ = 1: E[MMD²_u] = 0, while E[MMD²_b] = (1/m + 1/n)(1 − E k(x, x'))."""
    m = n = 10
    draw = lambda rng: rng.normal(size=(m, 2))  # noqa: E731
    u = _repeat_mmd2(draw, draw, 3000, True, 1.0, seed=0)
    b = _repeat_mmd2(draw, draw, 3000, False, 1.0, seed=0)  # the same samples
    se_u, se_b = u.std(ddof=1) / np.sqrt(len(u)), b.std(ddof=1) / np.sqrt(len(b))
    assert abs(u.mean()) < 4 * se_u
    bias = (1 / m + 1 / n) * (1 - expected_kernel(np.zeros(2), 2.0, 1.0, 2))  # = 0.2 · (1 − 1/3)
    assert abs(b.mean() - bias) < 4 * se_b
    assert b.mean() > 20 * se_b  # clearly positive: the V-statistic overestimates
    assert (b > u).all()  # for the same samples: V − U = (1/m)(1 − mean off-diagonal k_XX) + (same for Y) > 0


def test_unbiased_estimate_averages_to_the_closed_form_for_two_gaussians():
    """P = N((0, 0), I), Q = N((1, 0), 1.5² I), m = 6 and n = 9: the small-sample mean of MMD²_u is MMD² itself."""
    exact = gaussian_mmd2([0.0, 0.0], 1.0, [1.0, 0.0], 1.5, 1.2)
    u = _repeat_mmd2(lambda rng: rng.normal(size=(6, 2)), lambda rng: rng.normal([1.0, 0.0], 1.5, size=(9, 2)),
                     4000, True, 1.2, seed=1)
    se = u.std(ddof=1) / np.sqrt(len(u))
    assert abs(u.mean() - exact) < 4 * se
    assert exact > 10 * se  # the test could tell MMD² from 0


@pytest.mark.parametrize(("mu_q", "s_q", "sigma", "tol"), [
    ([0.0, 0.0], 1.0, 1.0, 2e-3),  # P = Q: MMD² = 0
    ([0.5, -0.5], 1.0, 1.0, 2e-2),  # MMD² = 0.053
    ([0.0, 0.0], 2.0, 0.5, 1.5e-2),  # 0.046: the same mean, another spread
    ([2.0, 0.0], 0.5, 2.0, 5e-2),  # 0.514
])
def test_mmd2_approaches_the_closed_form_on_large_samples(mu_q, s_q, sigma, tol):
    """m = n = 2000; ``tol`` is about four standard deviations of the estimate at that size (measured over 12 seeds:
    0.0004, 0.005, 0.004 and 0.012), and less than half of MMD² where MMD² > 0."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(2000, 2))  # P = N(0, I)
    Y = rng.normal(mu_q, s_q, size=(2000, 2))  # Q = N(mu_q, s_q² I)
    exact = gaussian_mmd2([0.0, 0.0], 1.0, mu_q, s_q, sigma)
    assert exact == 0 or exact > 2 * tol
    for unbiased in (True, False):  # the V-statistic's bias is below 1e-3 at this size
        assert mmd2(X, Y, bandwidth=sigma, unbiased=unbiased) == pytest.approx(exact, abs=tol)


def test_closed_form_is_what_the_mmd_of_distinct_gaussians_is():
    """The reference itself: 0 for P = Q, growing with the distance of the means, and below its limit 2 for σ → 0."""
    assert gaussian_mmd2([0.0, 0.0], 1.0, [0.0, 0.0], 1.0, 0.7) == pytest.approx(0.0, abs=1e-15)
    values = [gaussian_mmd2([0.0, 0.0], 1.0, [d, 0.0], 1.0, 1.0) for d in (0.5, 1.0, 2.0, 4.0)]
    assert np.all(np.diff(values) > 0) and values[-1] < 2 * expected_kernel(np.zeros(2), 2.0, 1.0, 2)


# --- the median heuristic ------------------------------------------------------------------------------------------

def test_median_bandwidth_is_the_median_distance_not_its_square():
    # points 0, 1 and 3 on a line: the pair distances are 1, 2 and 3, so the median is 2 (its square would be 4)
    assert median_bandwidth([[0.0], [1.0]], [[3.0]]) == 2.0


@pytest.mark.parametrize(("m", "n", "D"), [(3, 4, 2), (10, 5, 3)])
def test_median_bandwidth_matches_a_loop_over_the_pairs_of_the_pooled_sample(m, n, D):
    rng = np.random.default_rng(m * n)
    X, Y = rng.normal(size=(m, D)), rng.normal(2.0, 1.0, size=(n, D))
    Z = np.vstack([X, Y])
    pairs = [np.linalg.norm(Z[i] - Z[j]) for i in range(len(Z)) for j in range(i + 1, len(Z))]
    assert median_bandwidth(X, Y) == pytest.approx(np.median(pairs), rel=1e-12)
    assert median_bandwidth(Y, X) == pytest.approx(np.median(pairs), rel=1e-12)


# --- the modes of a known mixture ----------------------------------------------------------------------------------

CORNERS = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
SAMPLES = np.array([[0.1, 0.0], [0.0, -0.2], [-0.1, 0.1],  # three at corner 0
                    [2.0, 0.3],  # one at corner 1
                    [1.0, 1.0],  # between all corners, near none
                    [0.6, 0.0]])  # within 0.8 of corner 0 only


def test_assign_to_modes_takes_the_nearest_centre_within_the_radius():
    np.testing.assert_array_equal(assign_to_modes(SAMPLES, CORNERS, radius=0.5), [0, 0, 0, 1, -1, -1])
    np.testing.assert_array_equal(assign_to_modes(SAMPLES, CORNERS, radius=0.8), [0, 0, 0, 1, -1, 0])
    # a radius larger than half the spacing: the nearest centre wins, never two
    np.testing.assert_array_equal(assign_to_modes(SAMPLES, CORNERS, radius=1.5), [0, 0, 0, 1, 0, 0])
    np.testing.assert_array_equal(assign_to_modes(CORNERS[::-1], CORNERS, radius=0.0), [3, 2, 1, 0])


@pytest.mark.parametrize(("radius", "min_count", "covered", "fraction"), [
    (0.5, 1, 2, 4 / 6), (0.5, 2, 1, 4 / 6), (0.5, 4, 0, 4 / 6), (0.8, 4, 1, 5 / 6), (0.05, 1, 0, 0.0)])
def test_modes_covered_and_high_quality_fraction_on_hand_built_samples(radius, min_count, covered, fraction):
    assert modes_covered(SAMPLES, CORNERS, radius=radius, min_count=min_count) == covered
    assert high_quality_fraction(SAMPLES, CORNERS, radius=radius) == pytest.approx(fraction)


def test_true_ring_samples_cover_every_mode_with_the_gaussian_fraction_within_three_std():
    """For a 2-D Gaussian, P(‖x − μ‖ ≤ r) = 1 − exp(−r²/(2σ²)): 1 − e^(−9/2) ≈ 0.9889 at r = 3σ."""
    X, _ = make_gaussian_ring(20000, rng=np.random.default_rng(5), std=0.05)
    centres = gaussian_ring_centres()
    assert modes_covered(X, centres, radius=0.15, min_count=2000) == 8
    p = 1 - np.exp(-4.5)
    assert abs(high_quality_fraction(X, centres, radius=0.15) - p) < 4 * np.sqrt(p * (1 - p) / len(X))
    collapsed = X[np.hypot(*(X - centres[0]).T) < 0.5]  # the samples of a model that found one mode
    assert modes_covered(collapsed, centres, radius=0.15) == 1
    assert high_quality_fraction(collapsed, centres, radius=0.15) > 0.95  # good samples, one mode of eight


# --- bad input -----------------------------------------------------------------------------------------------------

def test_bad_input_is_refused_with_a_clear_message():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="Y has 1 rows .*expected at least 2"):
        mmd2(X, np.ones((1, 2)), bandwidth=1.0)
    assert mmd2(X, np.ones((1, 2)), bandwidth=1.0, unbiased=False) > 0  # one point is enough for the V-statistic
    with pytest.raises(ValueError, match=r"Y has 3 entries along axis 1, but X's axis 1 gives D = 2"):
        mmd2(X, np.ones((2, 3)), bandwidth=1.0)
    with pytest.raises(ValueError, match="bandwidth must be a finite number > 0"):
        mmd2(X, X, bandwidth=0.0)
    with pytest.raises(ValueError, match="unbiased must be True or False"):
        mmd2(X, X, bandwidth=1.0, unbiased=1)
    with pytest.raises(ValueError, match="median distance .* is 0"):
        median_bandwidth(X, np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"centres has 1 entry along axis 1, but samples's axis 1 gives D = 2"):
        modes_covered(X, np.zeros((4, 1)), radius=1.0)
    with pytest.raises(ValueError, match="min_count must be an integer >= 1"):
        modes_covered(X, CORNERS, radius=1.0, min_count=0)


def test_mode_std_matches_a_loop_over_the_points_near_a_centre():
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(4, 3)) * 5  # (K, D)
    samples = centres[rng.integers(0, 4, size=60)] + rng.normal(size=(60, 3)) * rng.uniform(0.1, 1.5, size=(60, 1))
    radius = 1.5
    squared = []
    for x in samples:  # one point at a time: its nearest centre, kept if within the radius
        distances = [np.linalg.norm(x - c) for c in centres]
        if min(distances) <= radius:
            squared.append(min(distances) ** 2)
    assert 0 < len(squared) < 60  # some points fall outside: the radius matters
    np.testing.assert_allclose(mode_std(samples, centres, radius=radius), np.sqrt(np.mean(squared) / 3), rtol=1e-12)


@pytest.mark.parametrize("std", [0.02, 0.05, 0.1])
def test_mode_std_is_the_modes_standard_deviation_and_sees_narrow_modes(std):
    X, _ = make_gaussian_ring(20_000, rng=np.random.default_rng(0), std=std)
    centres = gaussian_ring_centres()
    found = mode_std(X, centres, radius=0.5)  # 0.5 is 5 to 25 standard deviations: no truncation
    # the mean of 40,000 squared standard normals has a relative standard error √(2/40000) = 0.7%; half of it for √
    np.testing.assert_allclose(found, std, rtol=0.015)
    # the high-quality fraction at 3 × 0.05 cannot tell the narrow modes from the right ones; mode_std can
    if std < 0.05:
        assert high_quality_fraction(X, centres, radius=0.15) > 0.98 and found < 0.6 * 0.05


def test_mode_std_is_nan_when_no_point_is_near_a_centre():
    assert np.isnan(mode_std(np.array([[10.0, 10.0]]), gaussian_ring_centres(), radius=0.5))


def test_the_shipped_ring_comparison_holds_the_chapters_data_and_equal_budgets():
    scores, null_mmd2, config = load_ring_comparison()
    X, _ = make_gaussian_ring(config["data"]["n"], rng=np.random.default_rng(config["data"]["seed"]))
    X_held_out, _ = make_gaussian_ring(config["held_out"]["n"], rng=np.random.default_rng(config["held_out"]["seed"]))
    np.testing.assert_allclose(config["first_points"]["training"], X[:3], rtol=1e-12)
    np.testing.assert_allclose(config["first_points"]["held_out"], X_held_out[:3], rtol=1e-12)
    assert (config["data"]["seed"], config["held_out"]["seed"]) == (8, 13) and 8 in config["seeds"]
    points = {config["gan"]["rounds"] * config["gan"]["batch"], config["vae"]["steps"] * config["vae"]["batch"],
              config["ddpm"]["steps"] * config["ddpm"]["batch"]}
    assert points == {config["points_seen"]}  # every model sees the same number of real points
    assert set(scores) == set(config["runs"])
    for rows in scores.values():
        assert rows.shape == (len(config["seeds"]), 4)
        assert np.all((0 <= rows[:, 0]) & (rows[:, 0] <= 8)) and np.all((0 <= rows[:, 1]) & (rows[:, 1] <= 1))
    assert null_mmd2.shape == (config["null_draws"],) and abs(null_mmd2.mean()) < 3 * null_mmd2.std()


def test_the_ring_comparison_loader_refuses_a_damaged_file(tmp_path):
    import hashlib
    bad = tmp_path / "ring_generative_comparison.npz"
    bad.write_bytes(b"not an archive")
    (tmp_path / "SHA256SUMS").write_text(f"{hashlib.sha256(bad.read_bytes()).hexdigest()}  {bad.name}\n")
    with pytest.raises(ValueError, match="make generative-comparison"):
        load_ring_comparison(data_dir=tmp_path)
    (tmp_path / "SHA256SUMS").write_text(f"{'0' * 64}  {bad.name}\n")
    with pytest.raises(ValueError, match="SHA-256"):
        load_ring_comparison(data_dir=tmp_path)
