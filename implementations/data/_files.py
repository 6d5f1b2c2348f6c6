"""Reading the data files shipped in ``data/``: each is checked against ``data/SHA256SUMS``, then its content.

The checksum catches a file that was edited or truncated. A file whose checksum was regenerated after a damage
(``sha256sum`` run on a broken copy) passes it, so the content is checked too: text that is not UTF-8, an empty
file, a table without rows, a value that does not parse. Every message names the file, says what is wrong with it
and how to restore it; the loaders of :mod:`implementations.data.datasets` and the language model's loader read
through here.
"""

import hashlib
import io
from pathlib import Path

import numpy as np
import pandas as pd

#: The repository's ``data/`` folder, where the data files and ``SHA256SUMS`` live.
DATA_DIR = Path(__file__).resolve().parents[2] / "data"
CHECKSUM_FILE = "SHA256SUMS"


#: The shipped files that a script writes: (the make target that runs it, the script).
TRAINED_BY = {
    "persuasion_tinygpt.npz": ("language-model", "tools/train_language_model.py"),
    "persuasion_tinygpt_eval.npz": ("language-model-eval", "tools/evaluate_language_model.py"),
    "digits_cnn_comparison.npz": ("cnn-comparison", "tools/train_cnn_comparison.py"),
    "digits_batchnorm_grid.npz": ("batchnorm-grid", "tools/train_batchnorm_grid.py"),
    "reversal_seq2seq_comparison.npz": ("seq2seq-comparison", "tools/train_seq2seq_comparison.py"),
    "ring_generative_comparison.npz": ("generative-comparison", "tools/train_generative_comparison.py"),
}


def restore_hint(name, *, sums=False):
    """How to get a good copy of the data file ``name`` back; with ``sums``, of ``SHA256SUMS`` too.

    ``sums`` is for a file that passed its checksum but whose content is wrong: its entry in ``SHA256SUMS`` was
    regenerated from the damaged copy, so both files need restoring.
    """
    files = f"data/{name} data/{CHECKSUM_FILE}" if sums else f"data/{name}"
    restore = f"Restore {'both' if sums else 'it'} with `git checkout -- {files}`"
    if name in TRAINED_BY:  # a trained state or a comparison, written by a training script
        return f"{restore} or retrain it with `make {TRAINED_BY[name][0]}`."
    return f"{restore} or regenerate all data files with `make data`."


def file_in(folder, name):
    """The path of the data file ``name`` in ``folder`` (the repository's ``data/`` for None)."""
    return (DATA_DIR if folder is None else Path(folder)) / name


# --- the checksum ----------------------------------------------------------------------------------------------------

def _expected_sha256(path):
    """Read the expected hex digest of ``path`` from ``SHA256SUMS`` in the same folder."""
    sums_path = path.parent / CHECKSUM_FILE
    if not sums_path.is_file():
        raise FileNotFoundError(f"Checksum file {sums_path} not found, so {path.name} cannot be verified. "
                                + restore_hint(CHECKSUM_FILE))
    try:
        text = sums_path.read_text(encoding="ascii")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{sums_path} is not plain ASCII text ({exc.reason} at byte {exc.start}); expected lines "
                         "'<64 hex digits>  <file name>' as written by sha256sum. "
                         + restore_hint(CHECKSUM_FILE)) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            raise ValueError(f"{sums_path} line {number} is {line!r}; expected '<64 hex digits>  <file name>' "
                             "as written by sha256sum. " + restore_hint(CHECKSUM_FILE))
        if name.lstrip("*") == path.name:  # "*" marks binary mode in sha256sum output
            return digest.lower()
    raise ValueError(f"{sums_path} has no entry for {path.name}, so {path} cannot be verified. "
                     + restore_hint(CHECKSUM_FILE))


def verified_bytes(path):
    """The bytes of the data file ``path`` (a Path), after checking them against ``SHA256SUMS`` in its folder."""
    try:
        content = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        raise FileNotFoundError(f"Data file {path} not found. " + restore_hint(path.name)) from None
    expected = _expected_sha256(path)
    found = hashlib.sha256(content).hexdigest()
    if found != expected:
        raise ValueError(f"{path} has SHA-256 {found[:12]}... but {CHECKSUM_FILE} expects {expected[:12]}...; "
                         "the file was edited or truncated. " + restore_hint(path.name))
    return content


# --- the content -----------------------------------------------------------------------------------------------------

def damaged(path, what):
    """The error for a file that passed its checksum but whose content is wrong (the checksum was regenerated)."""
    return ValueError(f"{path} {what}. It matches its entry in {CHECKSUM_FILE}, so that entry was regenerated from "
                      "a damaged copy. " + restore_hint(path.name, sums=True))


def decode_text(path, content):
    """``content``, the bytes of the text file ``path``, as a str: UTF-8, at least one character."""
    if not content:
        raise damaged(path, "is empty (0 bytes)")
    try:
        return content.decode("utf-8")  # bytes, not read_text: "\n" stays "\n" on every platform
    except UnicodeDecodeError as exc:
        line = content.count(b"\n", 0, exc.start) + 1
        raise damaged(path, f"is not UTF-8 text: byte {exc.start} (line {line}) is 0x{content[exc.start]:02x}, "
                       f"{exc.reason}") from None


# What pandas reads as a missing value in a float column (its default na_values), besides the empty field.
_MISSING = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
            "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}


def read_table(path, dtypes):
    """The CSV data file ``path``, checked, with the columns and types ``dtypes`` (column -> "int64", "float64", "str").

    A value that does not parse is reported by file, column, row and line, with how to restore the file; pandas'
    own message ("invalid literal for int() with base 10: 'abc'") names neither the file nor the column.
    """
    text = decode_text(path, verified_bytes(path))
    try:
        table = pd.read_csv(io.StringIO(text), dtype=dtypes)
    except ValueError as exc:  # pandas.errors.ParserError (a row of the wrong length) is a ValueError too
        raise ValueError(_parse_failure(path, text, dtypes, exc)) from exc
    if list(table.columns) != list(dtypes):
        raise ValueError(_columns_message(path, list(table.columns), dtypes))
    if table.empty:
        raise damaged(path, f"has its header but no data rows; expected rows of {list(dtypes)}")
    return table


def _columns_message(path, columns, dtypes):
    return f"{path} has columns {columns}; expected {list(dtypes)}. " + restore_hint(path.name, sums=True)


def _parse_failure(path, text, dtypes, exc):
    """The message for a CSV file that pandas could not read with ``dtypes``: the first value that does not parse."""
    hint = restore_hint(path.name, sums=True)  # it passed its checksum: SHA256SUMS was regenerated too
    try:
        raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)  # every field as its text
    except ValueError:
        return f"{path} is not a well-formed CSV table ({str(exc).strip()}). " + hint
    if list(raw.columns) != list(dtypes):
        return _columns_message(path, list(raw.columns), dtypes)
    for row, values in enumerate(raw.itertuples(index=False), start=1):
        for column, value in zip(raw.columns, values, strict=True):
            kind = dtypes[column]
            if kind == "int64" and not _parses(int, value):
                expected = "an integer (this column has no missing values)"
            elif kind == "float64" and not (value.strip() in _MISSING or _parses(float, value)):
                expected = "a number, or an empty field for a missing value"
            else:
                continue
            return (f"{path.name}: the value {value!r} in column {column!r}, data row {row} (line {row + 1} of "
                    f"{path}), does not parse; expected {expected}. The file is damaged. " + hint)
    return f"{path} could not be read with the column types {dtypes} ({str(exc).strip()}). " + hint


def _parses(kind, text):
    try:
        kind(text)
    except ValueError:
        return False
    return True


def check_range(path, table, columns, low, high):
    """Raise ValueError naming the first value of ``columns`` outside low..high, by column and data row."""
    values = table[columns].to_numpy()  # (N, len(columns))
    outside = (values < low) | (values > high)
    if outside.any():
        row, column = np.argwhere(outside)[0]
        raise ValueError(f"{path.name}: the value {values[row, column]} in column {columns[column]!r}, data row "
                         f"{row + 1} (line {row + 2} of {path}), is outside {low}..{high}. The file is damaged. "
                         + restore_hint(path.name, sums=True))
