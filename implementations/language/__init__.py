"""Chapter 7, from words to transformers, and chapter 10, language models.

Chapter 7:

- :mod:`.text`: tokens, vocabularies, one-hot vectors and TF-IDF;
- :mod:`.word2vec`: word embeddings from the words around each word;
- :mod:`.attention`: attention as functions, masks and positional encodings;
- :mod:`.transformer`: multi-head attention, the transformer block, and the tiny GPT of chapter 10;
- :mod:`.seq2seq`: an RNN encoder–decoder with additive attention;
- :mod:`.seq2seq_transformer`: an encoder–decoder transformer, for the same tasks;
- :mod:`.decoding`: greedy decoding and beam search.

Chapter 10:

- :mod:`.bpe`: byte-pair encoding, a subword tokenizer;
- :mod:`.ngram`: n-gram language models, the baselines;
- :mod:`.language_model`: training and evaluating a language model on a long text.
"""
