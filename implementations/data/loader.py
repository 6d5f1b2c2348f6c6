"""Mini-batches for training: one epoch of (X_batch, y_batch) pairs, in a fresh random order each epoch.

The data modules make and load data sets; this module cuts one into the mini-batches an optimizer steps on. It is named
after its one class, ``DataLoader``, which plays the part of ``torch.utils.data.DataLoader`` for arrays in memory::

    loader = DataLoader(X_train, y_train, batch_size=32, rng=rng)
    total_steps = epochs * len(loader)  # for a learning-rate schedule
    for epoch in range(epochs):
        for X_batch, y_batch in loader:  # (B, ...) and (B,) or (B, K)
            ...
"""

from .._contract import checked
from ._checks import a_batch_per_epoch, an_rng_to_shuffle_with, examples, one_row_of_y_per_example

__all__ = ["DataLoader"]


class DataLoader:
    """The examples of (X, y) in mini-batches of ``batch_size``; each ``for`` loop over it is one epoch.

    With ``shuffle=True`` every epoch draws a new permutation of 0, …, N − 1 from ``rng`` and cuts it into
    consecutive batches: each example appears exactly once per epoch, and the order differs from epoch to epoch
    (the rng advances), while the same seed gives the same sequence of epochs. With ``shuffle=False`` the batches
    are the rows in their stored order, the same every epoch.

    The last batch holds the N mod B examples left over when B does not divide N. It is **kept** by default, so
    that every example is seen in every epoch (dropping it would leave some examples out of every epoch, and all of
    them when N < B). Pass ``drop_last=True`` when every batch must have B rows, e.g. when a batch statistic such
    as batch normalization would be computed from a handful of examples; the examples left out then change from
    epoch to epoch when shuffling. A mean loss over a small last batch weighs each of its examples more than a
    full batch does.

    Parameters
    ----------
    X : array_like of shape (N, ...)
        The inputs, any trailing shape: (N, m) features, (N, C, H, W) images, (N, T) token ids. Numeric and finite;
        the dtype is kept.
    y : array_like of shape (N,) or (N, K) (any trailing shape)
        The targets, one row per row of X: class labels (N,), one-hot or regression targets (N, K).
    batch_size : int >= 1
        B. A ``batch_size`` above N gives one batch of all N examples (unless ``drop_last``).
    rng : numpy.random.Generator, required when ``shuffle=True``
        Draws the permutation of each epoch. Leave it out with ``shuffle=False``.
    shuffle : bool, default True
    drop_last : bool, default False
        Drop the last batch when it holds fewer than B examples.

    Yields
    ------
    X_batch : ndarray of shape (B, ...)
    y_batch : ndarray of shape (B,) or (B, K)
        B rows, or N mod B in the last batch. Copies when shuffling, views of X and y when not.
    """

    @checked(X=examples, y=examples, batch_size="count", rng="rng?", shuffle="flag", drop_last="flag",
             also=(one_row_of_y_per_example, an_rng_to_shuffle_with, a_batch_per_epoch))
    def __init__(self, X, y, *, batch_size, rng=None, shuffle=True, drop_last=False):
        self.X, self.y = X, y  # (N, ...) and (N,) or (N, K), their dtypes kept
        self.batch_size, self.rng, self.shuffle, self.drop_last = batch_size, rng, shuffle, drop_last

    def __len__(self):
        """The number of batches per epoch: ⌈N / B⌉, or ⌊N / B⌋ with ``drop_last``."""
        N, B = self.X.shape[0], self.batch_size
        return N // B if self.drop_last else -(-N // B)

    def __iter__(self):
        """One epoch of (X_batch, y_batch); a new permutation each time when shuffling."""
        N, B = self.X.shape[0], self.batch_size
        order = self.rng.permutation(N) if self.shuffle else None  # (N,) drawn once per epoch
        for start in range(0, len(self) * B, B):
            rows = slice(start, min(start + B, N)) if order is None else order[start:start + B]  # (B,)
            yield self.X[rows], self.y[rows]  # (B, ...), (B,) or (B, K)
