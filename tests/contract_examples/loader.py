"""Valid examples for the input contract: loader (mini-batches of one epoch)."""

import numpy as np

from contract import Example
from implementations.data import loader

_rng = np.random.default_rng(0)
IMAGES = _rng.normal(size=(7, 2, 3, 3))  # (N, C, H, W)
LABELS = _rng.integers(0, 3, size=7)  # (N,)

EXAMPLES = {
    "implementations.data.loader.DataLoader": Example(
        build=lambda: (loader.DataLoader, {"X": IMAGES, "y": LABELS, "batch_size": 3,
                                           "rng": np.random.default_rng(0), "shuffle": True, "drop_last": False}),
        roles={"X": "array:any-nd", "y": "aligned:X", "batch_size": "count", "rng": "rng", "shuffle": "flag",
               "drop_last": "flag"},
        extra=[("a scalar instead of rows", {"X": 3.0}, ()),
               ("complex numbers", {"X": IMAGES + 1j}, ()),
               ("a batch larger than the data with drop_last=True", {"batch_size": 8, "drop_last": True}, ()),
               ("an rng with shuffle=False (it would not be used)", {"shuffle": False}, ())]),
}
