"""word2vec: word embeddings learned from the words around each word (Mikolov et al., 2013a, b), in NumPy.

Chapter 7 of the book. Every word w has an input vector v_w (a row of ``W_in``, the embedding we keep) and an output
vector u_w (a row of ``W_out``). A training example is a vector h made of input vectors and a word o to predict:

- skip-gram: h = v_c for a centre word c, and o one of the words within ``window`` positions of c;
- CBOW (continuous bag of words): h = (1/n_C) Σ_{j∈C} v_j, the mean over the n_C words C around a position, and o the
  word at that position.

h predicts o either by the full softmax p(o | h) = exp(u_oᵀh) / Σ_w exp(u_wᵀh), O(V) per example
(:func:`full_softmax_loss`), or by negative sampling, eq. (7.4), which approximates it in O(k) (:func:`sgns_loss`).
Subsampling of frequent words (Mikolov et al., 2013b, eq. 5) drops each occurrence of a word w with probability
max(0, 1 − √(t / f(w))), afresh every epoch (:func:`subsample`).
"""

import math
from collections import Counter

import numpy as np

from .._contract import checked
from .._validation import stop_if_diverged
from ..engine._fast import add_at_rows
from ..numeric import cosine_similarity, log_sigmoid, log_softmax, sigmoid, softmax
from . import _text_checks
from .text import tokenize

__all__ = ["sgns_loss", "full_softmax_loss", "cbow_loss", "subsample", "Word2Vec"]

DEFAULT_NEGATIVES = 5  # noise words per example when objective="negative" and negatives is not given
DEFAULT_LR = {"skipgram": 0.025, "cbow": 0.1}  # CBOW's input vectors get 1/n_C of ∂ℓ/∂h: a larger step


# --- the objectives -----------------------------------------------------------------------------------------------

@checked(v="array (b, d)", u_pos="array (b, d)", u_neg="array (b, k, d)")
def sgns_loss(v, u_pos, u_neg):
    """Skip-gram negative-sampling loss, eq. (7.4), and its gradients.

    For a centre word vector v, the output vector u₊ of a word seen in its context and the output
    vectors u₋ of k sampled "noise" words: ℓ = −log sigm(u₊·v) − Σ log sigm(−u₋·v).

    Parameters
    ----------
    v : ndarray of shape (b, d)
        Finite, b ≥ 1.
    u_pos : ndarray of shape (b, d)
    u_neg : ndarray of shape (b, k, d)

    Returns
    -------
    loss : float
        Mean of ℓ over the b pairs.
    grads : tuple of ndarrays (dv, du_pos, du_neg), shaped like the arguments, of the mean loss
    """
    b = len(v)
    s_pos = np.einsum("bd,bd->b", u_pos, v)  # (b,): u₊·v
    s_neg = np.einsum("bkd,bd->bk", u_neg, v)  # (b, k): u₋·v
    loss = -(log_sigmoid(s_pos).sum() + log_sigmoid(-s_neg).sum()) / b
    g_pos = (sigmoid(s_pos) - 1.0) / b  # (b,): ∂ℓ/∂s₊
    g_neg = sigmoid(s_neg) / b  # (b, k): ∂ℓ/∂s₋
    dv = g_pos[:, None] * u_pos + np.einsum("bk,bkd->bd", g_neg, u_neg)  # (b, d)
    return float(loss), (dv, g_pos[:, None] * v, g_neg[:, :, None] * v[:, None, :])


@checked(v="array (b, d)", U="array (V, d)", o="ids (b,) < V")
def full_softmax_loss(v, U, o):
    """The full-softmax cross-entropy of skip-gram, eq. (7.3), that negative sampling approximates, and its gradients.

    For an input vector v, the output vectors u_w of all V words (the rows of U) and the word o to predict:
    ℓ = −log p(o | v) = −u_oᵀv + log Σ_w exp(u_wᵀv). Its gradients are ∂ℓ/∂v = Σ_w p(w | v) u_w − u_o and
    ∂ℓ/∂u_w = (p(w | v) − [w = o]) v: every output vector moves, which is the O(V) cost that negative sampling
    avoids.

    Parameters
    ----------
    v : ndarray of shape (b, d)
        Input vectors (a centre word's v_c in skip-gram, a context mean in CBOW), finite, b ≥ 1.
    U : ndarray of shape (V, d)
        The output vectors of the whole vocabulary, V ≥ 1.
    o : array_like of int, shape (b,)
        The word to predict for each row of v, in 0, …, V − 1.

    Returns
    -------
    loss : float
        Mean of ℓ over the b rows.
    grads : tuple (dv, dU) of the mean loss, of shapes (b, d) and (V, d)
    """
    b, rows = len(v), np.arange(len(v))
    scores = v @ U.T  # (b, V): u_wᵀv for every word w
    loss = -np.mean(log_softmax(scores)[rows, o])  # −log p(o | v)
    G = softmax(scores)  # (b, V): p(w | v)
    G[rows, o] -= 1.0  # ∂ℓ/∂scores = p − one-hot(o)
    G /= b  # of the mean
    return float(loss), (G @ U, G.T @ v)  # (b, d), (V, d)


@checked(v_context="array (b, slots, d)", mask="mask (b, slots)", U="array (V, d)", o="ids (b,) < V",
         noise="ids (b, k) < V?", also=_text_checks.context_in_every_example)
def cbow_loss(v_context, mask, U, o, noise=None):
    """CBOW loss: the mean of the context's input vectors predicts the centre word, and the gradients.

    h = (1/n_C) Σ_{j∈C} v_j over the context positions C (where ``mask`` is true); then ℓ is
    :func:`full_softmax_loss` of (h, U, o) when ``noise`` is None, else eq. (7.4) with u₊ = u_o and u₋ the rows of U
    at ``noise``. Each context vector receives ∂ℓ/∂v_j = (1/n_C) ∂ℓ/∂h. (The released C code, with its default
    ``-cbow 1``, adds ∂ℓ/∂h itself to every v_j, without the 1/n_C; this is the exact gradient.)

    Parameters
    ----------
    v_context : ndarray of shape (b, slots, d)
        The input vectors of up to ``slots`` context words of each of b examples (padding rows are ignored), finite.
    mask : array_like of bool or 0/1, shape (b, slots)
        True where ``v_context`` holds a context word; at least one per example.
    U : ndarray of shape (V, d)
        The output vectors of the whole vocabulary.
    o : array_like of int, shape (b,)
        The centre word of each example, in 0, …, V − 1.
    noise : array_like of int, shape (b, k), optional
        Noise words for negative sampling; None (default) for the full softmax.

    Returns
    -------
    loss : float
        Mean of ℓ over the b examples.
    grads : tuple (dv_context, dU) of the mean loss, of shapes (b, slots, d) (zero at padding) and (V, d)
    """
    h, count = _context_mean(v_context, mask)  # (b, d), (b,)
    if noise is None:
        loss, (dh, dU) = full_softmax_loss(h, U, o)
    else:
        loss, (dh, du_pos, du_neg) = sgns_loss(h, U[o], U[noise])
        dU = np.zeros_like(U)  # (V, d): a word that occurs twice gets both gradients
        add_at_rows(dU, o, du_pos)
        add_at_rows(dU, noise, du_neg)
    return loss, (_context_mean_backward(dh, mask, count), dU)


def _context_mean(v_context, mask):
    """h = mean of the rows of ``v_context`` where ``mask`` is true: (b, d), and the count n_C of each: (b,)."""
    count = mask.sum(axis=1)  # (b,)
    h = np.einsum("bc,bcd->bd", mask, v_context) / count[:, None]  # (b, d)
    return h, count


def _context_mean_backward(dh, mask, count):
    """∂ℓ/∂v_j = [j ∈ C] ∂ℓ/∂h / n_C: (b, slots, d), zero at padding."""
    return (mask / count[:, None])[:, :, None] * dh[:, None, :]


# --- subsampling of frequent words ------------------------------------------------------------------------------------

@checked(tokens="tokens", t="rate", rng="rng", also=_text_checks.some_tokens)
def subsample(tokens, t, *, rng):
    """Which occurrences survive subsampling of frequent words (Mikolov et al., 2013b, eq. 5): one random draw.

    Each occurrence of a word w is discarded with probability max(0, 1 − √(t / f(w))), independently, where f(w) is
    the relative frequency of w in ``tokens``: words rarer than t are always kept, a word 100 t frequent is kept
    with probability 0.1. The released C code keeps w with probability √(t / f(w)) + t / f(w) instead (t / f(w)
    more); this function, and :meth:`Word2Vec.fit`, implement the paper's formula.

    Parameters
    ----------
    tokens : list of str
        The text, e.g. all sentences' tokens one after the other; at least one token.
    t : float
        The threshold, > 0; the paper uses 10⁻⁵ on billions of words; a small corpus needs a larger t.
    rng : numpy.random.Generator

    Returns
    -------
    keep : ndarray of bool, shape (len(tokens),)
    """
    _, ids, counts = np.unique(np.array(tokens), return_inverse=True, return_counts=True)  # (N,), (V,)
    f = counts / counts.sum()  # (V,): relative frequencies
    return rng.random(len(ids)) < np.minimum(1.0, np.sqrt(t / f))[ids]  # (N,): kept with probability √(t / f(w))


# --- training -------------------------------------------------------------------------------------------------------

def _windows(ids, sentence, window):
    """The words at offsets −window, …, −1, 1, …, window of every position: ids (N, 2w), mask (N, 2w) true inside
    the sentence. Reading the true entries row by row lists each position's context words left to right."""
    offsets = np.r_[-window:0, 1 : window + 1]  # (2w,)
    q = np.arange(len(ids))[:, None] + offsets  # (N, 2w): positions of the context slots
    inside = (q >= 0) & (q < len(ids))
    q = np.clip(q, 0, len(ids) - 1)
    mask = inside & (sentence[q] == sentence[:, None])  # (N, 2w)
    return ids[q], mask


def _examples(ids, sentence, window, architecture):
    """Training examples of the text: skip-gram (centres (P,), contexts (P,)), in the order sentence, centre, context;
    CBOW (contexts (E, 2w), mask (E, 2w), centres (E,)), one per position with at least one context word."""
    contexts, mask = _windows(ids, sentence, window)  # (N, 2w), (N, 2w)
    if architecture == "skipgram":
        centres = np.broadcast_to(ids[:, None], mask.shape)  # (N, 2w)
        return centres[mask], contexts[mask]  # (P,), (P,)
    has_context = mask.any(axis=1)  # (N,)
    return contexts[has_context], mask[has_context], ids[has_context]  # (E, 2w), (E, 2w), (E,)


class Word2Vec(_text_checks.SetBy):
    """word2vec embeddings (Mikolov et al., 2013): skip-gram or CBOW, negative sampling or full softmax, in NumPy.

    Each word has an input vector (the embedding, a row of ``W_in``) and an output vector (a row of ``W_out``). By
    default (skip-gram, negative sampling) training pushes the input vector of every word towards the output vectors
    of the words within ``window`` positions of it and away from ``negatives`` words drawn from the unigram
    distribution raised to the power 3/4; see :meth:`fit` for the others. :meth:`fit` sets the attributes; reading
    one before says so.

    Attributes
    ----------
    words : list of str
        The vocabulary, most frequent first.
    W_in, W_out : ndarray of shape (V, dim)
    loss_history : list of float
        Mean loss of each epoch.
    examples_per_epoch : list of int
        Training examples of each epoch: (centre, context) pairs for skip-gram, positions for CBOW; fewer, and
        different each epoch, with subsampling.
    architecture, objective : str
    subsample : float or None
    """

    _set_by = dict.fromkeys(["words", "index", "W_in", "W_out", "loss_history", "examples_per_epoch", "architecture",
                             "objective", "subsample"], "fit(sentences, dim=..., window=..., epochs=..., rng=...)")

    @checked(sentences=_text_checks.sentences, dim="count", window="count", epochs="count", rng="rng",
             negatives="count?", lr="rate?", batch_size="count", architecture="{skipgram, cbow}",
             objective="{negative, softmax}", subsample="rate?", also=_text_checks.negatives_only_with_noise)
    def fit(self, sentences, *, dim, window, epochs, rng, negatives=None, lr=None, batch_size=64,
            architecture="skipgram", objective="negative", subsample=None):
        """Learn the embeddings from ``sentences`` (lists of tokens, or strings to :func:`.text.tokenize`).

        Learning rate decays linearly from ``lr`` to lr / 100 over the run; mini-batches of ``batch_size``
        examples are updated together. The defaults give skip-gram with negative sampling, eq. (7.4). The window is
        fixed (the C code shrinks it at random for each position).

        Parameters
        ----------
        sentences : list of (str or list of str)
            The training text, one sentence per entry; a bare string is refused.
        dim, window, epochs, batch_size : int
            Embedding width, context half-width, passes over the text, examples per update; each ≥ 1.
        rng : numpy.random.Generator
        negatives : int, optional
            Noise words per example for ``objective="negative"`` (default 5), ≥ 1; leave it out for "softmax".
        lr : float, optional
            Initial learning rate, > 0; default 0.025 for skip-gram, 0.1 for CBOW, whose input vectors receive
            1/n_C of ∂ℓ/∂h. (The C code's defaults are 0.025 and 0.05, the latter without the 1/n_C.)
        architecture : {"skipgram", "cbow"}, default "skipgram"
            "skipgram": the centre word's v_c predicts each context word; "cbow": the mean of the context words'
            input vectors predicts the centre word (:func:`cbow_loss`).
        objective : {"negative", "softmax"}, default "negative"
            Negative sampling, eq. (7.4), or the full softmax over the V words (:func:`full_softmax_loss`).
        subsample : float, optional
            The threshold t of :func:`subsample`, > 0: each epoch drops every occurrence of a word w with
            probability max(0, 1 − √(t / f(w))), afresh, before taking the windows (so the window reaches past
            dropped words). None (default): keep every word.

        Returns
        -------
        self

        Raises
        ------
        FloatingPointError
            If a batch loss is no longer finite or has grown 10⁴-fold from the first batch's (training
            diverged: ``lr`` is too large).
        """
        lr = DEFAULT_LR[architecture] if lr is None else lr
        negatives = DEFAULT_NEGATIVES if negatives is None else negatives
        self.architecture, self.objective, self.subsample = architecture, objective, subsample
        text, frequency = self._read(sentences)  # (tokens, ids, sentence of each id), counts (V,)
        noise_cdf = _noise_cdf(frequency)  # (V,)
        V = len(self.words)
        self.W_in = (rng.random((V, dim)) - 0.5) / dim
        self.W_out = np.zeros((V, dim))
        self.loss_history, self.examples_per_epoch = [], []
        step, first_loss = 0, None
        for epoch in range(epochs):
            examples = _examples_of_epoch(text, window, architecture, subsample, rng, epoch)
            n_examples = len(examples[0])
            n_batches = math.ceil(n_examples / batch_size)
            order = rng.permutation(n_examples)
            losses = []
            for s, start in enumerate(range(0, n_examples, batch_size)):
                batch = order[start : start + batch_size]
                neg = None if objective == "softmax" else noise_cdf.searchsorted(
                    rng.random((len(batch), negatives)), side="right")  # (b, k)
                loss, update = self._batch_gradients([e[batch] for e in examples], neg)
                try:  # a loss no longer finite, or 10⁴ times the first (that of W_out = 0): lr is too large
                    stop_if_diverged(loss, first_loss, step=step, rate_name="lr", rate=lr)
                except FloatingPointError as exc:
                    raise FloatingPointError(f"{exc} A smaller batch_size={batch_size} helps too: frequent words "
                                             "get many updates per batch.") from None
                first_loss = loss if first_loss is None else first_loss
                done = epoch * n_batches + s  # batches of the run so far, counting this epoch's as n_batches each
                rate = lr * (1.0 - 0.99 * done / (epochs * n_batches)) * len(batch)  # gradients are of the mean
                for W, rows, gradient in update:  # plain SGD
                    if rows is None:  # every row
                        W -= rate * gradient
                    else:
                        add_at_rows(W, rows, -rate * gradient)
                losses.append(loss)
                step += 1
            self.loss_history.append(float(np.mean(losses)))
            self.examples_per_epoch.append(n_examples)
        return self

    def _read(self, sentences):
        """Set ``words`` and ``index``; return the text (tokens, ids (N,), the sentence of each (N,)), counts (V,)."""
        sentences = [tokenize(s) if isinstance(s, str) else list(s) for s in sentences]
        tokens = [token for s in sentences for token in s]
        counts = Counter(tokens)
        if len(counts) < 2:
            raise ValueError(f"sentences must hold at least two distinct words to learn from; received "
                             f"{len(counts)}. Pass more text.")
        if max(len(s) for s in sentences) < 2:
            raise ValueError("sentences give no (word, context) pairs: every sentence has a single word. "
                             "Pass sentences of two or more words.")
        self.words = sorted(counts, key=lambda w: (-counts[w], w))
        self.index = {w: i for i, w in enumerate(self.words)}
        ids = np.array([self.index[token] for token in tokens], dtype=np.int64)  # (N,)
        sentence = np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])  # (N,)
        return (tokens, ids, sentence), np.array([counts[w] for w in self.words], dtype=np.float64)

    def _batch_gradients(self, batch, neg):
        """Mean loss of a ``batch`` (a slice of each array of ``_examples``) with noise words ``neg`` (b, k) or
        None (full softmax), and its gradients as [(matrix, rows or None for every row, gradient)]."""
        if self.architecture == "skipgram":
            c, o = batch  # (b,), (b,)
            h = self.W_in[c]  # (b, d)
        else:
            context, mask, o = batch  # (b, 2w), (b, 2w), (b,)
            h, count = _context_mean(self.W_in[context], mask)  # (b, d), (b,)
        if neg is None:
            loss, (dh, dU) = full_softmax_loss(h, self.W_out, o)
            out = [(self.W_out, None, dU)]
        else:
            loss, (dh, du_pos, du_neg) = sgns_loss(h, self.W_out[o], self.W_out[neg])
            out = [(self.W_out, o, du_pos), (self.W_out, neg, du_neg)]
        if self.architecture == "skipgram":
            return loss, [(self.W_in, c, dh), *out]
        return loss, [(self.W_in, context, _context_mean_backward(dh, mask, count)), *out]  # padding gets 0

    def _row(self, word):
        if word not in self.index:
            raise KeyError(f"word {word!r} is not in the vocabulary of {len(self.words)} words; expected one of "
                           f"the words of the training sentences (model.words). Check its spelling and case.")
        return self.index[word]

    @checked(word=_text_checks.word)
    def vector(self, word):
        """The embedding of ``word``: a copy of its row of ``W_in``, shape (dim,).

        Raises
        ------
        KeyError
            If ``word`` is not in the vocabulary (``words``).
        """
        return self.W_in[self._row(word)].copy()

    @checked(word=_text_checks.word, k="count")
    def most_similar(self, word, k=5):
        """The ``k`` other words with the largest cosine similarity to ``word``: list of (word, similarity).

        Raises
        ------
        KeyError
            If ``word`` is not in the vocabulary (``words``).
        """
        i = self._row(word)
        sims = cosine_similarity(self.W_in[i], self.W_in)[0]  # (V,)
        sims[i] = -np.inf
        best = np.argsort(-sims, kind="stable")[:k]
        return [(self.words[j], float(sims[j])) for j in best]


def _examples_of_epoch(text, window, architecture, t, rng, epoch):
    """The training examples of one epoch: of the whole text, or, with a threshold t, of a fresh subsample of it."""
    tokens, ids, sentence = text
    if t is not None:
        keep = subsample(tokens, t, rng=rng)  # (N,): a fresh draw each epoch
        ids, sentence = ids[keep], sentence[keep]
    examples = _examples(ids, sentence, window, architecture)
    if not len(examples[0]):
        raise ValueError(f"subsample={t:g} left no training example in epoch {epoch}: it drops almost every word of "
                         "this text. Use a larger subsample threshold, or None.")
    return examples


def _noise_cdf(frequency):
    """The cumulative distribution of the noise words, P_n(w) ∝ count(w)^(3/4): (V,), ending at 1."""
    noise = frequency**0.75
    noise /= noise.sum()
    noise_cdf = noise.cumsum()
    noise_cdf /= noise_cdf[-1]  # sampling by inverting this CDF is what rng.choice(V, p=noise) does, checks aside
    return noise_cdf
