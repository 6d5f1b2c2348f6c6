"""Chapter 7: language and transformers.

- :mod:`.text`: tokens, vocabularies, one-hot vectors and TF-IDF;
- :mod:`.word2vec`: word embeddings from the words around each word;
- :mod:`.bpe`: byte-pair encoding, a subword tokenizer;
- :mod:`.ngram`: n-gram language models, the baselines;
- :mod:`.attention`: attention as functions, masks and positional encodings;
- :mod:`.transformer`: multi-head attention, the transformer block, a tiny GPT;
- :mod:`.seq2seq`: an RNN encoder–decoder with additive attention;
- :mod:`.seq2seq_transformer`: an encoder–decoder transformer, for the same tasks;
- :mod:`.decoding`: greedy decoding and beam search;
- :mod:`.language_model`: training and evaluating a language model on a long text.
"""
