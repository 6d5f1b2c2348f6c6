"""Valid examples for the input contract: language_model (training and evaluating a language model)."""

import numpy as np

from contract import Example
from implementations.language import language_model as lm
from implementations.language.transformer import TinyGPT

IDS = np.tile(np.arange(7), 6)  # (42,) token ids 0..6


def _model():
    return TinyGPT(7, 6, 8, 2, 1, 16, rng=np.random.default_rng(0), tie_weights=True)


_NOT_A_MODEL = [("a string as the model", {"model": "gpt"}, (TypeError,)),
                ("a model without loss()", {"model": object()}, (TypeError,))]
_SHORT = [("fewer ids than one window", {"ids": np.arange(3)}, (ValueError,)),
          ("an id -1", {"ids": np.r_[-1, IDS]}, (ValueError,)),
          ("a fractional id", {"ids": np.r_[0.5, IDS]}, (ValueError,)),
          ("a string", {"ids": "the cat"}, (TypeError, ValueError))]

EXAMPLES = {
    "implementations.language.language_model.random_windows": Example(
        build=lambda: (lm.random_windows, {"ids": IDS, "block_size": 6, "batch_size": 3,
                                           "rng": np.random.default_rng(0)}),
        roles={"block_size": "count", "batch_size": "count", "rng": "rng"},
        extra=_SHORT),
    "implementations.language.language_model.evaluation_windows": Example(
        build=lambda: (lm.evaluation_windows, {"ids": IDS, "block_size": 6}),
        roles={"block_size": "count"},
        extra=_SHORT),
    "implementations.language.language_model.mean_cross_entropy": Example(
        build=lambda: (lm.mean_cross_entropy, {"model": _model(), "ids": IDS, "batch_size": 4}),
        roles={"batch_size": "count"},
        extra=[*_NOT_A_MODEL, *_SHORT, ("an id 7, outside the vocabulary", {"ids": np.r_[IDS, 7]}, (ValueError,))]),
    "implementations.language.language_model.sliding_window_losses": Example(
        build=lambda: (lm.sliding_window_losses, {"model": _model(), "ids": IDS, "stride": 3, "batch_size": 4}),
        roles={"batch_size": "count"},
        extra=[*_NOT_A_MODEL, *_SHORT, ("a stride 4 that does not divide 6", {"stride": 4}, (ValueError,))]),
    "implementations.language.language_model.train_language_model": Example(
        build=lambda: (lm.train_language_model, {"model": _model(), "ids": IDS, "steps": 2, "batch_size": 2,
                                                 "lr": 1e-3, "warmup_steps": 1, "rng": np.random.default_rng(0),
                                                 "stop_after": 1}),
        roles={"steps": "count", "batch_size": "count", "lr": "rate", "warmup_steps": "count0", "rng": "rng",
               "stop_after": "count?"},
        extra=[*_NOT_A_MODEL, *_SHORT,
               ("warm-up as long as the run", {"warmup_steps": 2}, (ValueError,)),
               ("val_ids without eval_every", {"val_ids": IDS}, (ValueError,)),
               ("a negative weight decay", {"weight_decay": -0.1}, (ValueError,)),
               ("a stop after the end of the run", {"stop_after": 3}, (ValueError,))]),
    "implementations.language.language_model.load_persuasion_model": Example(
        build=lambda: (lm.load_persuasion_model, {}),
        extra=[("a missing folder", {"data_dir": "/nonexistent/folder"}, (FileNotFoundError,)),
               ("a number as the folder", {"data_dir": 42}, (TypeError,))]),
}
