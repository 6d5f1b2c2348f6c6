"""Valid examples for the input contract: mmd (chapter 9's sample-based measures of a generative model)."""

import numpy as np

from contract import Example
from implementations.generative import mmd

_rng = np.random.default_rng(0)
X = _rng.normal(size=(5, 2))  # (m, D) = (5, 2)
Y = _rng.normal(size=(4, 2)) + 0.5  # (n, D) = (4, 2)
CENTRES = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # (K, D) = (3, 2)

_SECOND_SAMPLE = [("Y of another dimension", {"Y": np.zeros((4, 3))}, ())]
_CENTRES = [("centres of another dimension", {"centres": np.zeros((3, 1))}, ())]

EXAMPLES = {
    "implementations.generative.mmd.mmd2": Example(
        build=lambda: (mmd.mmd2, {"X": X, "Y": Y, "bandwidth": 1.0, "unbiased": True}),
        roles={"X": "array", "Y": "array", "bandwidth": "rate", "unbiased": "flag"},
        extra=_SECOND_SAMPLE + [("a single point for the unbiased estimate", {"Y": Y[:1]}, ()),
                                ("a single point for the unbiased estimate", {"X": X[:1]}, ())]),
    "implementations.generative.mmd.median_bandwidth": Example(
        build=lambda: (mmd.median_bandwidth, {"X": X, "Y": Y}),
        roles={"X": "array", "Y": "array"},
        extra=_SECOND_SAMPLE + [("points that all coincide", {"X": np.zeros((5, 2)), "Y": np.zeros((4, 2))}, ())]),
    "implementations.generative.mmd.assign_to_modes": Example(
        build=lambda: (mmd.assign_to_modes, {"samples": X, "centres": CENTRES, "radius": 0.5}),
        roles={"samples": "array", "centres": "array", "radius": "penalty"},
        extra=_CENTRES),
    "implementations.generative.mmd.modes_covered": Example(
        build=lambda: (mmd.modes_covered, {"samples": X, "centres": CENTRES, "radius": 0.5, "min_count": 1}),
        roles={"samples": "array", "centres": "array", "radius": "penalty", "min_count": "count"},
        extra=_CENTRES),
    "implementations.generative.mmd.high_quality_fraction": Example(
        build=lambda: (mmd.high_quality_fraction, {"samples": X, "centres": CENTRES, "radius": 0.5}),
        roles={"samples": "array", "centres": "array", "radius": "penalty"},
        extra=_CENTRES),
    "implementations.generative.mmd.mode_std": Example(
        build=lambda: (mmd.mode_std, {"samples": X, "centres": CENTRES, "radius": 0.5}),
        roles={"samples": "array", "centres": "array", "radius": "penalty"},
        extra=_CENTRES),
    "implementations.generative.mmd.load_ring_comparison": Example(
        build=lambda: (mmd.load_ring_comparison, {}),
        extra=[("a missing folder", {"data_dir": "/nonexistent/folder"}, (FileNotFoundError,)),
               ("a number as the folder", {"data_dir": 42}, (TypeError,))]),
}
