"""The data files shipped with the book: five small CSV tables and a novel, checked against their checksums first.

The files live in the repository's ``data/`` folder next to a ``SHA256SUMS`` file;
each loader checks the file against its checksum before reading it, so an edited or
truncated copy fails loudly instead of silently changing the book's numbers.
``data/README.md`` says where each table comes from. The synthetic problems, drawn
fresh rather than stored, are in :mod:`implementations.data.synthetic`.
"""

import hashlib
import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import _describe

__all__ = [
    "DATA_DIR",
    "PENGUIN_SPECIES",
    "load_houses",
    "load_paris_apartments",
    "load_penguins",
    "load_sunspots",
    "load_digits",
    "load_persuasion",
    "verify_checksum",
]

#: The repository's ``data/`` folder, where the CSV files and ``SHA256SUMS`` live.
DATA_DIR = Path(__file__).resolve().parents[2] / "data"
CHECKSUM_FILE = "SHA256SUMS"

HOUSES_DTYPES = {
    "size_sqft": "int64",  # living area above ground, ft²
    "bedrooms": "int64",  # bedrooms above ground
    "floors": "float64",  # storeys: 1, 1.5, 2 or 2.5
    "age_years": "int64",  # year sold − year built
    "price_k": "float64",  # sale price, thousands of US dollars
}
PARIS_DTYPES = {
    "living_area_m2": "float64",  # living area, m²
    "rooms": "int64",
    "district": "int64",  # Paris arrondissement, 1..20
    "price_eur": "int64",  # price, euros
}

PENGUIN_DTYPES = {
    "species": "str",  # Adelie, Chinstrap or Gentoo
    "island": "str",  # Biscoe, Dream or Torgersen (Palmer Archipelago, Antarctica)
    "bill_length_mm": "float64",  # culmen length, mm
    "bill_depth_mm": "float64",  # culmen depth, mm
    "flipper_length_mm": "float64",  # mm (whole numbers; float because two rows are missing)
    "body_mass_g": "float64",  # g (whole numbers; idem)
    "sex": "str",  # female, male, or missing
    "year": "int64",  # year of the study, 2007-2009
}
SUNSPOT_DTYPES = {
    "year": "int64",  # 1749-2013
    "month": "int64",  # 1-12
    "sunspots": "float64",  # monthly mean total sunspot number (the series before SILSO's 2015 revision)
}
# The 8x8 digit images, one column per pixel named by its row i and column j (as scikit-learn names them), then the
# digit shown. Pixel (i, j) counts the black bits in a 4x4 block of the original 32x32 bitmap: 0 (white) to 16.
DIGITS_SIDE = 8
DIGITS_MAX_PIXEL = 16
DIGITS_DTYPES = {
    **{f"pixel_{i}_{j}": "int64" for i in range(DIGITS_SIDE) for j in range(DIGITS_SIDE)},  # row i, column j
    "label": "int64",  # the digit, 0-9
}
PERSUASION_SPLITS = ("all", "train", "validation")
PERSUASION_VALIDATION_SHARE = 10  # the last 1/10 of the paragraphs (rounded down) is the validation text
PENGUIN_MEASUREMENTS = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
# Class index k of each species in the book: y = k means PENGUIN_SPECIES[k].
#: The three species of the penguin table, in the order of their class labels 0, 1, 2.
PENGUIN_SPECIES = ("Adelie", "Chinstrap", "Gentoo")


def _restore_hint(name):
    if name.endswith(".npz"):  # a trained state (chapter 7's language model), written by a training script
        return f"Restore it with `git checkout -- data/{name}` or retrain it with `make language-model`."
    return f"Restore it with `git checkout -- data/{name}` or regenerate all data files with `make data`."


def _expected_sha256(path):
    """Read the expected hex digest of ``path`` from ``SHA256SUMS`` in the same folder."""
    sums_path = path.parent / CHECKSUM_FILE
    if not sums_path.is_file():
        raise FileNotFoundError(
            f"Checksum file {sums_path} not found, so {path.name} cannot be verified. "
            + _restore_hint(CHECKSUM_FILE)
        )
    try:
        text = sums_path.read_text(encoding="ascii")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{sums_path} is not plain ASCII text ({exc.reason} at byte {exc.start}); expected lines "
            "'<64 hex digits>  <file name>' as written by sha256sum. " + _restore_hint(CHECKSUM_FILE)
        ) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            raise ValueError(
                f"{sums_path} line {number} is {line!r}; expected '<64 hex digits>  <file name>' "
                "as written by sha256sum. " + _restore_hint(CHECKSUM_FILE)
            )
        if name.lstrip("*") == path.name:  # "*" marks binary mode in sha256sum output
            return digest.lower()
    raise ValueError(
        f"{sums_path} has no entry for {path.name}, so {path} cannot be verified. "
        + _restore_hint(CHECKSUM_FILE)
    )


def verify_checksum(path):
    """Check a data file against the ``SHA256SUMS`` file in its folder.

    Parameters
    ----------
    path : str or pathlib.Path
        The data file, e.g. ``data/houses.csv``.

    Raises
    ------
    TypeError
        If ``path`` is not a str or a path object.
    FileNotFoundError
        If the file or ``SHA256SUMS`` is missing.
    ValueError
        If ``SHA256SUMS`` has no valid entry for the file, or the file's SHA-256 differs.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (str or pathlib.Path); received {_describe(path)}. "
                        "Pass e.g. path=DATA_DIR / 'houses.csv'.")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path {str(path)!r} is not an existing file; expected a data file such as "
                                "data/houses.csv. " + _restore_hint(path.name))
    _verify_checksum(path)


def _verify_checksum(path):
    """:func:`verify_checksum` of a ``Path`` built by a loader: the messages name the file, not an argument."""
    if not path.is_file():
        raise FileNotFoundError(f"Data file {path} not found. " + _restore_hint(path.name))
    expected = _expected_sha256(path)
    found = hashlib.sha256(path.read_bytes()).hexdigest()
    if found != expected:
        raise ValueError(
            f"{path} has SHA-256 {found[:12]}... but {CHECKSUM_FILE} expects {expected[:12]}...; "
            "the file was edited or truncated. " + _restore_hint(path.name)
        )


def _data_folder(data_dir, name):
    """The folder to read ``name`` from: ``DATA_DIR`` for None, else ``data_dir``, which must be an existing folder."""
    if data_dir is None:
        return DATA_DIR
    if not isinstance(data_dir, (str, os.PathLike)):
        raise TypeError(f"data_dir must be a folder path (str or pathlib.Path); received {_describe(data_dir)}. "
                        "Omit it (data_dir=None) to read the repository's data/ folder.")
    folder = Path(data_dir)
    if not folder.is_dir():
        raise FileNotFoundError(f"data_dir {str(folder)!r} is not an existing folder; expected the folder holding "
                                f"{name} and {CHECKSUM_FILE}. Omit it (data_dir=None) to read the repository's data/.")
    return folder


def _load_csv(name, dtypes, data_dir):
    path = _data_folder(data_dir, name) / name
    _verify_checksum(path)
    table = _read_csv(path, dtypes)
    _check_columns(path, list(table.columns), dtypes)
    return table


def _check_columns(path, columns, dtypes):
    if columns != list(dtypes):
        raise ValueError(_columns_message(path, columns, dtypes))


def _columns_message(path, columns, dtypes):
    return f"{path} has columns {columns}; expected {list(dtypes)}. " + _restore_hint(path.name)


# What pandas reads as a missing value in a float column (its default na_values), besides the empty field.
_MISSING = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
            "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}


def _read_csv(path, dtypes):
    """Read the CSV file ``path`` with the column types ``dtypes`` (column -> "int64", "float64" or "str").

    A value that does not parse is reported by file, column, row and line, with how to restore the file; pandas'
    own message ("invalid literal for int() with base 10: 'abc'") names neither the file nor the column.
    """
    try:
        return pd.read_csv(path, dtype=dtypes)
    except ValueError as exc:  # pandas.errors.ParserError (a row of the wrong length) is a ValueError too
        raise ValueError(_parse_failure(path, dtypes, exc)) from exc


def _parse_failure(path, dtypes, exc):
    """The message for a CSV file that pandas could not read with ``dtypes``: the first value that does not parse."""
    hint = _restore_hint(path.name)
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)  # every field as its text
    except ValueError:
        return f"{path} is not a well-formed CSV table ({str(exc).strip()}). " + hint
    if list(raw.columns) != list(dtypes):
        return _columns_message(path, list(raw.columns), dtypes)
    for row, values in enumerate(raw.itertuples(index=False), start=1):
        for column, value in zip(raw.columns, values, strict=True):
            kind = dtypes[column]
            if kind == "int64" and not _is_int_literal(value):
                expected = "an integer (this column has no missing values)"
            elif kind == "float64" and not (value.strip() in _MISSING or _is_float_literal(value)):
                expected = "a number, or an empty field for a missing value"
            else:
                continue
            return (f"{path.name}: the value {value!r} in column {column!r}, data row {row} (line {row + 1} of "
                    f"{path}), does not parse; expected {expected}. The file is damaged. " + hint)
    return f"{path} could not be read with the column types {dtypes} ({str(exc).strip()}). " + hint


def _is_int_literal(text):
    try:
        int(text)
    except ValueError:
        return False
    return True


def _is_float_literal(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_houses(*, data_dir=None):
    """Load 100 houses sold in Ames, Iowa, 2006–2010 (De Cock, 2011).

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``houses.csv`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    houses : pandas.DataFrame of shape (100, 5)
        ``size_sqft`` (int, ft²), ``bedrooms`` (int), ``floors`` (float: 1, 1.5, 2 or 2.5),
        ``age_years`` (int) and ``price_k`` (float, thousands of US dollars).

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, the file does not match its checksum (see
        :func:`verify_checksum`), or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path.
    """
    return _load_csv("houses.csv", HOUSES_DTYPES, data_dir)


def load_paris_apartments(*, data_dir=None):
    """Load the 15 illustrative Paris apartments that open chapter 1.

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``paris_apartments.csv`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    apartments : pandas.DataFrame of shape (15, 4)
        ``living_area_m2`` (float, m²), ``rooms`` (int), ``district`` (int, arrondissement)
        and ``price_eur`` (int, euros).

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, the file does not match its checksum (see
        :func:`verify_checksum`), or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path.
    """
    return _load_csv("paris_apartments.csv", PARIS_DTYPES, data_dir)


def load_penguins(*, drop_missing=True, data_dir=None):
    """Load the Palmer penguins: 344 birds of three species measured in 2007–2009 (Gorman et al., 2014).

    Two of the 344 rows (one Adelie, one Gentoo) have no measurement at all, only species, island
    and year. By default they are dropped, which leaves 342 birds with all four measurements; nine
    of those have no recorded sex (``sex`` is missing), which the book never uses as a feature.

    Parameters
    ----------
    drop_missing : bool, default True
        Drop the two rows without measurements. ``False`` returns all 344 rows as shipped.
    data_dir : str or pathlib.Path, optional
        Folder holding ``penguins.csv`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    penguins : pandas.DataFrame of shape (342, 8), or (344, 8) with ``drop_missing=False``
        ``species`` (str, one of :data:`PENGUIN_SPECIES`), ``island`` (str), ``bill_length_mm``,
        ``bill_depth_mm``, ``flipper_length_mm`` (float, mm), ``body_mass_g`` (float, g),
        ``sex`` (str or missing) and ``year`` (int). The index runs 0, 1, … after dropping.

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, the file does not match its checksum (see
        :func:`verify_checksum`), or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path, or ``drop_missing`` is not a bool.
    """
    if not isinstance(drop_missing, bool):
        raise TypeError(f"drop_missing must be True or False; received {drop_missing!r}.")
    penguins = _load_csv("penguins.csv", PENGUIN_DTYPES, data_dir)
    if drop_missing:
        penguins = penguins.dropna(subset=PENGUIN_MEASUREMENTS).reset_index(drop=True)
    return penguins



def load_sunspots(*, data_dir=None):
    """Load 3,177 monthly mean sunspot numbers, January 1749 to September 2013 (WDC-SILSO, via R).

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``sunspots.csv`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    sunspots : pandas.DataFrame of shape (3177, 3)
        ``year`` (int), ``month`` (int, 1-12) and ``sunspots`` (float, one decimal), consecutive months.

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, the file does not match its checksum (see
        :func:`verify_checksum`), or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path.
    """
    return _load_csv("sunspots.csv", SUNSPOT_DTYPES, data_dir)


def load_digits(*, data_dir=None):
    """Load 1,797 handwritten digits as 8x8 images (UCI optdigits test set, as shipped by scikit-learn).

    Each digit was written by one of 13 people on a form, scanned as a 32x32 black-and-white bitmap and cut into
    8x8 blocks of 4x4 bits; a pixel counts the black bits of its block, from 0 (white) to 16 (all black).
    The ten digits are about equally frequent (174 to 183 images each).

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``digits.csv`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    X : ndarray of shape (1797, 8, 8), float64
        The images: ``X[n, i, j]`` is row i (top to bottom), column j (left to right) of image n, a whole number
        0..16. Divide by 16 to scale the pixels to [0, 1]. A convolution wants a channel axis: ``X[:, None]`` has
        shape (N, C, H, W) = (1797, 1, 8, 8); ``X.reshape(len(X), 64)`` gives the 64 features of a dense model.
    y : ndarray of shape (1797,), int64
        The digit each image shows, 0..9.

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, the file does not match its checksum (see
        :func:`verify_checksum`), or a value in it does not parse or lies outside 0..16 (pixels) or 0..9 (labels).
    TypeError
        If ``data_dir`` is not a path.
    """
    path = _data_folder(data_dir, "digits.csv") / "digits.csv"
    table = _load_csv(path.name, DIGITS_DTYPES, path.parent)
    _check_range(path, table, list(DIGITS_DTYPES)[:-1], 0, DIGITS_MAX_PIXEL)
    _check_range(path, table, ["label"], 0, 9)
    pixels = table.iloc[:, :-1].to_numpy(dtype=np.float64)  # (N, 64): pixel_0_0, pixel_0_1, ..., pixel_7_7
    X = pixels.reshape(-1, DIGITS_SIDE, DIGITS_SIDE)  # (N, 8, 8): row-major, the first 8 columns are the top row
    y = table["label"].to_numpy(dtype=np.int64)  # (N,)
    return X, y


def _check_range(path, table, columns, low, high):
    """Raise ValueError naming the first value of ``columns`` outside low..high, by column and data row."""
    values = table[columns].to_numpy()  # (N, len(columns))
    outside = (values < low) | (values > high)
    if outside.any():
        row, column = np.argwhere(outside)[0]
        raise ValueError(f"{path.name}: the value {values[row, column]} in column {columns[column]!r}, data row "
                         f"{row + 1} (line {row + 2} of {path}), is outside {low}..{high}. The file is damaged. "
                         + _restore_hint(path.name))


def load_persuasion(*, split="all", data_dir=None):
    """Load Jane Austen's novel *Persuasion* (1818) as one string, for a character- or token-level language model.

    The whole novel, 24 chapters, 464,346 characters of plain ASCII: one paragraph per line, paragraphs separated by
    a blank line (``"\\n\\n"``), a chapter heading ("Chapter 7") as a paragraph of its own, case and punctuation as
    printed. Its P = 1,035 paragraphs split in order: the last P // 10 = 103 (the close of chapter 22 and chapters
    23 and 24, 48,596 characters) are the validation text, the 932 before them (415,750 characters) the training
    text, so the two never share a paragraph and ``train + validation`` is the whole novel.

    Parameters
    ----------
    split : {"all", "train", "validation"}, default "all"
        Which part to return.
    data_dir : str or pathlib.Path, optional
        Folder holding ``persuasion.txt`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    text : str
        The requested part. ``"train"`` ends with the blank line before the first validation paragraph; every part
        ends with ``"\\n"``.

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, or the file does not match its checksum (see
        :func:`verify_checksum`); if ``split`` is not one of the three names.
    TypeError
        If ``data_dir`` is not a path, or ``split`` is not a str.
    """
    if not isinstance(split, str):
        raise TypeError(f"split must be a str, one of {list(PERSUASION_SPLITS)}; received {_describe(split)}.")
    if split not in PERSUASION_SPLITS:
        raise ValueError(f"split must be one of {list(PERSUASION_SPLITS)}; received {split!r}. "
                         "Pass split='train' or split='validation' for the two parts, split='all' for the novel.")
    path = _data_folder(data_dir, "persuasion.txt") / "persuasion.txt"
    _verify_checksum(path)
    text = path.read_bytes().decode("utf-8")  # bytes, not read_text: "\n" stays "\n" on every platform
    if split == "all":
        return text
    paragraphs = text.split("\n\n")  # (P,) the last one ends with the file's final "\n"
    n_train = len(paragraphs) - len(paragraphs) // PERSUASION_VALIDATION_SHARE
    train = "\n\n".join(paragraphs[:n_train]) + "\n\n"
    return train if split == "train" else text[len(train):]
