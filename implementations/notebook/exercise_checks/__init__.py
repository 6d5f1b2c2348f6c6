"""One check per exercise of the book, one module per chapter: the reference, the random inputs and the tolerances.

Each function is named after the function the reader writes and is called from that exercise's check cell,
``exercise_checks.ridge_weights(ridge_weights, rng=np.random.default_rng(SEED))``. Keeping the checks here
rather than in the notebooks lets ``tests/test_exercise_checks.py`` prove that every check accepts a right
answer and rejects the classic wrong ones (a missing factor, a sign error, no max-subtraction, a transposed
matrix, an off-by-one mask, …). Inputs grow with the trial number, so the first failure is the smallest.
This package gathers the chapters' modules (``ch1`` … ``ch7``, ``unsupervised`` for chapter 8, learning without
labels, ``ch9`` and ``ch10``) under one name.
"""

from . import ch1, ch2, ch3, ch4, ch5, ch6, ch7, ch9, ch10, unsupervised
from .ch1 import *  # noqa: F403
from .ch2 import *  # noqa: F403
from .ch3 import *  # noqa: F403
from .ch3 import svm_subgradient  # noqa: F401  (the first edition's exercise: its student copies call it)
from .ch4 import *  # noqa: F403
from .ch5 import *  # noqa: F403
from .ch6 import *  # noqa: F403
from .ch7 import *  # noqa: F403
from .ch7 import block_parameters, positional_encoding  # noqa: F401  (the first edition's exercises)
from .ch9 import *  # noqa: F403
from .ch9 import gaussian_kl, mmd2_unbiased, noised  # noqa: F401  (the first edition's exercises)
from .ch10 import *  # noqa: F403
from .unsupervised import *  # noqa: F403
from .unsupervised import m_step_covariances, seeding_probabilities  # noqa: F401  (the first exercises)

__all__ = [*ch1.__all__, *ch2.__all__, *ch3.__all__, *ch4.__all__, *ch5.__all__, *ch6.__all__, *ch7.__all__,
           *unsupervised.__all__, *ch9.__all__, *ch10.__all__]  # in the order of the book
