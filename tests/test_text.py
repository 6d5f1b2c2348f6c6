"""Tests of implementations.language.text: tokens, vocabulary, TF-IDF against scikit-learn, word2vec."""

import numpy as np
import pytest

from implementations.data import WORD_CATEGORIES, make_corpus
from implementations.language.text import Vocabulary, tfidf, tokenize
from implementations.language.word2vec import Word2Vec, sgns_loss
from implementations.numeric import cosine_similarity, one_hot
from implementations.preliminaries.gradcheck import numerical_gradient

DOCS = [
    "The quick brown fox jumps over the lazy dog",
    "Never jump over lazy dogs quickly",
    "Quick foxes are better than lazy dogs",
]


def test_tokenize_keeps_order_lowercases_and_splits_punctuation():
    assert tokenize("I need to run to catch the bus!") == ["i", "need", "to", "run", "to", "catch", "the", "bus", "!"]
    assert tokenize("Don't STOP, 2 cats.") == ["don't", "stop", ",", "2", "cats", "."]
    with pytest.raises(TypeError):
        tokenize(["a"])


def test_vocabulary_orders_by_frequency_and_maps_unknowns():
    vocab = Vocabulary("b a b c b a".split())
    assert vocab.itos == ["<pad>", "<unk>", "b", "a", "c"]
    assert vocab.stoi["a"] == 3 and len(vocab) == 5
    np.testing.assert_array_equal(vocab.encode(["a", "zebra", "c"]), [3, 1, 4])
    assert vocab.decode([2, 3, 0]) == ["b", "a", "<pad>"]
    assert Vocabulary("b a b c b a".split(), min_count=2).itos == ["<pad>", "<unk>", "b", "a"]
    with pytest.raises(ValueError, match="ids must hold token ids 0, …, 4"):
        vocab.decode([7])


def test_one_hot_rows_are_unit_vectors_and_orthogonal():
    E = one_hot(np.array([[0, 2], [1, 2]]), 4)
    assert E.shape == (2, 2, 4)
    np.testing.assert_array_equal(E[0, 1], [0, 0, 1, 0])
    flat = E.reshape(-1, 4)
    gram = flat @ flat.T
    assert gram[0, 1] == 0 and gram[1, 3] == 1  # different words orthogonal, equal words identical
    with pytest.raises(ValueError, match="y must hold class labels 0, …, 3"):
        one_hot([4], 4)


@pytest.mark.parametrize("sublinear_tf", [False, True])
@pytest.mark.parametrize("smooth_idf", [False, True])
@pytest.mark.parametrize("norm", ["l2", "l1", None])
def test_tfidf_equals_scikit_learn(sublinear_tf, smooth_idf, norm):
    sklearn_text = pytest.importorskip("sklearn.feature_extraction.text")
    docs = DOCS + ["The the THE dog; a dog's bone, 42 bones!", "It's a dog-eat-dog world"]
    X, vocabulary = tfidf(docs, sublinear_tf=sublinear_tf, smooth_idf=smooth_idf, norm=norm)
    reference = sklearn_text.TfidfVectorizer(sublinear_tf=sublinear_tf, smooth_idf=smooth_idf, norm=norm)
    expected = reference.fit_transform(docs).toarray()
    assert vocabulary == list(reference.get_feature_names_out())
    np.testing.assert_allclose(X, expected, rtol=0, atol=1e-12)


def test_tfidf_rejects_bad_input():
    with pytest.raises(TypeError):
        tfidf("one string")
    with pytest.raises(ValueError, match="norm"):
        tfidf(DOCS, norm="l3")
    with pytest.raises(ValueError, match="no terms"):
        tfidf(["a b", "c"])


def test_cosine_similarity_values_and_zero_vector():
    assert cosine_similarity([1.0, 0.0], [0.0, 2.0]) == 0.0
    np.testing.assert_allclose(cosine_similarity([1.0, 1.0], [2.0, 2.0]), 1.0)
    S = cosine_similarity(np.random.default_rng(0).normal(size=(4, 3)))
    np.testing.assert_allclose(np.diag(S), 1.0)
    np.testing.assert_allclose(S, S.T)
    with pytest.raises(ValueError, match="zero vector"):
        cosine_similarity([0.0, 0.0], [1.0, 0.0])


def test_sgns_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    v, u_pos, u_neg = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 5, 4))
    loss, grads = sgns_loss(v, u_pos, u_neg)
    s_pos, s_neg = (u_pos * v).sum(1), np.einsum("bkd,bd->bk", u_neg, v)
    direct = np.mean(np.log1p(np.exp(-s_pos)) + np.log1p(np.exp(s_neg)).sum(1))
    np.testing.assert_allclose(loss, direct)
    args = [v, u_pos, u_neg]
    for k in range(3):
        def f(x, k=k):
            a = list(args)
            a[k] = x
            return sgns_loss(*a)[0]
        np.testing.assert_allclose(grads[k], numerical_gradient(f, args[k]), rtol=1e-6, atol=1e-9)


def test_corpus_uses_only_known_categories():
    sentences, category = make_corpus(200, rng=np.random.default_rng(0))
    assert len(sentences) == 200 and len(category) == 30
    assert set(category.values()) == set(WORD_CATEGORIES)
    content = [w for s in sentences for w in s.split() if w in category]
    assert len(set(content)) == 30  # every word occurs
    assert make_corpus(5, rng=np.random.default_rng(3)) == make_corpus(5, rng=np.random.default_rng(3))


def test_word2vec_puts_words_of_a_category_together():
    sentences, category = make_corpus(2000, rng=np.random.default_rng(0))
    model = Word2Vec().fit(sentences, dim=16, window=2, negatives=5, epochs=4, rng=np.random.default_rng(1))
    assert model.loss_history[-1] < model.loss_history[0]
    nearest = {w: model.most_similar(w, k=1)[0][0] for w in category}
    same = np.mean([category.get(n) == category[w] for w, n in nearest.items()])
    assert same >= 0.8  # chance is about 5/29
    assert model.vector("cat").shape == (16,)
    again = Word2Vec().fit(sentences, dim=16, window=2, negatives=5, epochs=4, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(model.W_in, again.W_in)
    with pytest.raises(KeyError, match="zebra"):
        model.vector("zebra")
    with pytest.raises(FloatingPointError, match=r"diverged.*lr=50 is too large"), np.errstate(all="ignore"):
        Word2Vec().fit(sentences, dim=16, window=2, negatives=5, epochs=1, rng=np.random.default_rng(1),
                       lr=50.0, batch_size=512)


# --- bad input is refused clearly (issue 21) --------------------------------------------------------------------------

SMALL = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"]


def _fit_small(**kwargs):
    arguments = {"dim": 4, "window": 2, "negatives": 2, "epochs": 3, "rng": np.random.default_rng(0), "batch_size": 8}
    return Word2Vec().fit(SMALL, **{**arguments, **kwargs})


@pytest.mark.parametrize("lr", [0.0, -1.0])
def test_word2vec_refuses_a_learning_rate_that_is_not_positive_up_front(lr):
    with pytest.raises(ValueError, match=rf"lr must be a finite number > 0; received {lr}"):
        _fit_small(lr=lr)


@pytest.mark.parametrize("lr", [10.0, 1e4])
def test_word2vec_notices_a_loss_that_grows_by_orders_of_magnitude(lr):
    """lr=10 drives the loss of this corpus to 1e27 and lr=1e4 to 1e132, finite all along: that is divergence."""
    with pytest.raises(FloatingPointError, match=rf"diverged at step \d+.*lr={lr:g} is too large; try lr="), \
            np.errstate(all="ignore"):
        _fit_small(lr=lr)


def test_word2vec_refuses_a_bare_string_and_non_token_sentences():
    with pytest.raises(TypeError, match=r"sentences must be a list of sentences; received the string"):
        Word2Vec().fit("the cat sat on the mat", dim=4, window=2, negatives=2, epochs=1, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"sentences must hold strings or lists of str tokens; entry 1"):
        Word2Vec().fit([["a", "b"], ["c", 1]], dim=4, window=2, negatives=2, epochs=1, rng=np.random.default_rng(0))


def test_word2vec_vector_names_the_word_argument():
    model = _fit_small()
    with pytest.raises(KeyError, match=r"word 'zebra' is not in the vocabulary"):
        model.vector("zebra")
    with pytest.raises(TypeError, match=r"word must be a str"):
        model.most_similar(3)


def test_vocabulary_refuses_a_string_instead_of_a_list_of_tokens():
    with pytest.raises(TypeError, match=r"tokens must be a list of tokens; received the string 'the cat'"):
        Vocabulary("the cat")
    with pytest.raises(TypeError, match=r"tokens must be a list of tokens \(str\)"):
        Vocabulary(["the", 3])
    vocab = Vocabulary("b a b c b a".split())
    with pytest.raises(TypeError, match=r"tokens must be a list of tokens; received the string 'abc'"):
        vocab.encode("abc")  # not three unknown letters


@pytest.mark.parametrize("ids", [[1.5], [2.0, 0.5], "2 3"])
def test_vocabulary_decode_refuses_fractional_and_out_of_range_ids(ids):
    vocab = Vocabulary("b a b c b a".split())  # 5 entries
    with pytest.raises((ValueError, TypeError), match=r"^ids "):
        vocab.decode(ids)


def test_sgns_loss_names_its_own_arguments():
    rng = np.random.default_rng(1)
    v, u_pos, u_neg = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 5, 4))
    v[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"^v contains 1 NaN or infinite value\(s\), the first at index \(1, 2\)"):
        sgns_loss(v, u_pos, u_neg)
    with pytest.raises(ValueError, match=r"u_pos has 2 entries along axis 0, but v's axis 0 gives b = 3"):
        sgns_loss(u_pos, u_pos[:2], u_neg)
    with pytest.raises(ValueError, match=r"u_neg has 3 entries along axis 2, but v's axis 1 gives d = 4"):
        sgns_loss(u_pos, u_pos, u_neg[..., :3])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: cosine_similarity("abc"), TypeError, r"^A must be a numeric array; received the string 'abc'"),
        (lambda: cosine_similarity([1.0, 2.0], "xy"), TypeError, r"^B must be a numeric array"),
        (lambda: cosine_similarity([1.0, 2.0], [1.0, 2.0, 3.0]), ValueError,
         r"^B has 3 entries along axis 0, but A's axis 0 gives d = 2"),
        (lambda: cosine_similarity([[1.0, np.inf]]), ValueError, r"^A contains 1 NaN or infinite"),
        (lambda: one_hot("12", 4), TypeError, r"^y must be a numeric array"),
        (lambda: one_hot([0.5], 4), ValueError, r"^y must hold class labels 0, …, 3"),
        (lambda: tfidf(["a dog", 3]), TypeError, r"^docs must be a list of document strings"),
        (lambda: tfidf(DOCS, sublinear_tf="yes"), ValueError, r"^sublinear_tf must be True or False"),
        (lambda: tfidf([]), ValueError, r"^docs \(0 documents\) contain no terms"),
        (lambda: tokenize(42), TypeError, r"^text must be a str; received int 42"),
    ],
)
def test_text_functions_report_wrong_kinds_by_argument_name(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_vocabulary_needs_a_token_besides_pad_and_unk():
    with pytest.raises(ValueError, match=r"tokens is empty; expected at least one token"):
        Vocabulary([])
    with pytest.raises(ValueError, match=r"min_count=3 leaves no token of tokens in the vocabulary \(the most "
                                         r"frequent one occurs 2 time\(s\)\)"):
        Vocabulary(["a", "b", "a"], min_count=3)
    with pytest.raises(ValueError, match="min_count=1 leaves no token"):
        Vocabulary(["<pad>", "<unk>"])
    assert Vocabulary(["a", "b", "a"], min_count=2).itos == ["<pad>", "<unk>", "a"]
