"""Mini-batches for training: one epoch of (X_batch, y_batch) pairs, in a fresh random order each epoch.

The data modules make and load data sets; this module cuts one into the mini-batches an optimizer steps on. It is named
after its one class, ``DataLoader``, which plays the part of ``torch.utils.data.DataLoader`` for arrays in memory::

    loader = DataLoader(X_train, y_train, batch_size=32, rng=rng)
    total_steps = epochs * len(loader)  # for a learning-rate schedule
    for epoch in range(epochs):
        for X_batch, y_batch in loader:  # (B, ...) and (B,) or (B, K)
            ...
"""

from .._validation import _describe, as_array, check_finite_values, check_flag, check_positive_int, check_rng

__all__ = ["DataLoader"]


def _check_data(a, name):
    """``a`` as an array with at least one dimension and one row, numeric and finite, its dtype kept.

    The dtype is kept so that integer class labels stay integers and uint8 images are not copied to float64.
    """
    a = as_array(a, name, dtype=None)
    if a.ndim == 0:
        raise ValueError(f"{name} must be an array with one row per example; received a scalar ({_describe(a)}). "
                         "Pass an array of shape (N, ...).")
    if a.shape[0] == 0:
        raise ValueError(f"{name} has no rows (shape {a.shape}); expected at least one example.")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a numeric array; received dtype {a.dtype}. Convert it to numbers first.")
    if a.dtype.kind == "f":
        check_finite_values(a, name)
    return a


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

    def __init__(self, X, y, *, batch_size, rng=None, shuffle=True, drop_last=False):
        self.X = _check_data(X, "X")  # (N, ...)
        self.y = _check_data(y, "y")  # (N,) or (N, K)
        if self.y.shape[0] != self.X.shape[0]:
            raise ValueError(f"X has {self.X.shape[0]} rows but y has {self.y.shape[0]}; expected one row of y per "
                             "row (example) of X. Check that X and y were split and filtered together.")
        self.batch_size = check_positive_int(batch_size, "batch_size")
        self.shuffle = check_flag(shuffle, "shuffle")
        self.drop_last = check_flag(drop_last, "drop_last")
        if self.shuffle and rng is None:
            raise TypeError("rng must be a numpy.random.Generator to shuffle with (shuffle=True); received None. "
                            "Pass rng=np.random.default_rng(seed), or shuffle=False to keep the stored order.")
        if self.shuffle:
            self.rng = check_rng(rng)
        elif rng is not None:
            raise ValueError(f"rng is not used with shuffle=False; received {_describe(rng)}. Pass shuffle=True to "
                             "shuffle with it, or leave rng out to keep the stored order.")
        else:
            self.rng = None
        if self.drop_last and len(self) == 0:
            raise ValueError(f"batch_size={self.batch_size} is larger than the {self.X.shape[0]} examples, so with "
                             "drop_last=True no batch would be left. Use a smaller batch_size or drop_last=False.")

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
