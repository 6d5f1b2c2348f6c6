"""One check shared by the tests of chapter 9's shipped models (test_vae.py, test_diffusion.py)."""

import numpy as np

from implementations.data.synthetic import gaussian_ring_centres, make_gaussian_ring
from implementations.generative import mmd


def assert_scores_as_stored(samples, run):
    """``samples`` (n, 2) of the chapter's model score as the comparison file stores for ``run`` and the chapter's seed:
    modes covered exactly; the high-quality fraction to a point or two (another CPU may move a point across the
    radius); the std within modes and MMD² to well below their printed digits."""
    scores, _, config = mmd.load_ring_comparison()
    covered, quality, spread, mmd2 = scores[run][config["seeds"].index(config["chapter_seed"])]
    centres = gaussian_ring_centres()
    assert mmd.modes_covered(samples, centres, radius=config["radius"], min_count=config["min_count"]) == covered
    assert abs(mmd.high_quality_fraction(samples, centres, radius=config["radius"]) - quality) <= 0.002
    assert abs(mmd.mode_std(samples, centres, radius=config["std_radius"]) - spread) < 1e-3
    X_held_out, _ = make_gaussian_ring(config["held_out"]["n"], rng=np.random.default_rng(config["held_out"]["seed"]))
    assert abs(mmd.mmd2(X_held_out, samples[:config["mmd_points"]], bandwidth=config["bandwidth"]) - mmd2) < 1e-4
