"""The data files shipped with the book: five small CSV tables and a novel, checked against their checksums first.

The files live in the repository's ``data/`` folder next to a ``SHA256SUMS`` file;
each loader checks the file against its checksum before reading it, so an edited or
truncated copy fails loudly instead of silently changing the book's numbers, and then checks what it reads (text
that is not UTF-8, a table without rows, a value that does not parse), in case the checksum was regenerated from a
damaged copy. ``data/README.md`` says where each table comes from. The synthetic problems, drawn fresh rather than
stored, are in :mod:`implementations.data.synthetic`, :mod:`implementations.data.sequence_tasks` and
:mod:`implementations.data.corpora`.
"""

import json
import zipfile

import numpy as np

from .._contract import checked
from . import _files
from ._checks import data_file, file_name, folder_holding, one_of
from ._files import DATA_DIR, verified_bytes

__all__ = [
    "DATA_DIR",
    "shipped_file",
    "read_shipped_archive",
    "PENGUIN_SPECIES",
    "load_houses",
    "load_paris_apartments",
    "load_penguins",
    "load_sunspots",
    "load_digits",
    "load_persuasion",
    "verify_checksum",
]

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


@checked(path=data_file)
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
    verified_bytes(path)


@checked(name=file_name, data_dir=folder_holding("the data file"))
def shipped_file(name, *, data_dir=None):
    """The path of a file shipped in ``data/`` (or in ``data_dir``), after checking it against ``SHA256SUMS``.

    For a loader outside this module that reads a file of its own (chapter 10's trained language model).

    Parameters
    ----------
    name : str
        The file's name, e.g. ``"persuasion_tinygpt.npz"``.
    data_dir : str or pathlib.Path, optional
        The folder holding the file and ``SHA256SUMS``; the repository's ``data/`` by default.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError, ValueError
        If the file or its checksum is missing, or the file does not match it; the message says how to restore it.
    """
    path = _files.file_in(data_dir, name)
    verified_bytes(path)
    return path


@checked(name=file_name, read="function", data_dir=folder_holding("the data file"))
def read_shipped_archive(name, read, *, data_dir=None):
    """``read(stored, config)`` for a NumPy archive that one of the book's scripts writes into ``data/`` (a trained
    model, a comparison of several training runs), after checking the file against ``SHA256SUMS``.

    ``stored`` is the open archive (read with ``allow_pickle=False``) and ``config`` its entry ``"config"``, the
    script's settings as JSON, decoded. An archive that passed its checksum but cannot be read as ``read`` expects (an
    entry missing, a config that is not JSON) raises ``ValueError`` naming the file, what failed, and how to restore it
    or rebuild it with its make target.

    Parameters
    ----------
    name : str
        The file's name, one that a script writes (``"digits_cnn_comparison.npz"``).
    read : callable
        ``read(stored, config) -> result``.
    data_dir : str or pathlib.Path, optional
        The folder holding the file and ``SHA256SUMS``; the repository's ``data/`` by default.

    Returns
    -------
    What ``read`` returns.
    """
    if name not in _files.TRAINED_BY:
        raise ValueError(f"name: {name!r} is not a file that one of the book's scripts writes; expected one of "
                         f"{sorted(_files.TRAINED_BY)}.")
    path = shipped_file(name, data_dir=data_dir)  # checked against SHA256SUMS first
    try:
        with np.load(path, allow_pickle=False) as stored:
            return read(stored, json.loads(str(stored["config"])))
    except (KeyError, IndexError, TypeError, ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        detail = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc).rstrip(".")
        raise ValueError(f"{path} is not the archive that {_files.TRAINED_BY[name][1]} writes (reading it failed: "
                         f"{detail}). " + _files.restore_hint(name, sums=True)) from exc


@checked(data_dir=folder_holding("houses.csv"))
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
        :func:`verify_checksum`), or it has no rows, or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path.
    """
    return _files.read_table(_files.file_in(data_dir, "houses.csv"), HOUSES_DTYPES)


@checked(data_dir=folder_holding("paris_apartments.csv"))
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
        :func:`verify_checksum`), or it has no rows, or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path.
    """
    return _files.read_table(_files.file_in(data_dir, "paris_apartments.csv"), PARIS_DTYPES)


@checked(drop_missing="flag", data_dir=folder_holding("penguins.csv"))
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
        :func:`verify_checksum`), or it has no rows, or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path, or ``drop_missing`` is not a bool.
    """
    penguins = _files.read_table(_files.file_in(data_dir, "penguins.csv"), PENGUIN_DTYPES)
    if drop_missing:
        penguins = penguins.dropna(subset=PENGUIN_MEASUREMENTS).reset_index(drop=True)
    return penguins



@checked(data_dir=folder_holding("sunspots.csv"))
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
        :func:`verify_checksum`), or it has no rows, or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path.
    """
    return _files.read_table(_files.file_in(data_dir, "sunspots.csv"), SUNSPOT_DTYPES)


@checked(data_dir=folder_holding("digits.csv"))
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
    path = _files.file_in(data_dir, "digits.csv")
    table = _files.read_table(path, DIGITS_DTYPES)
    _files.check_range(path, table, list(DIGITS_DTYPES)[:-1], 0, DIGITS_MAX_PIXEL)
    _files.check_range(path, table, ["label"], 0, 9)
    pixels = table.iloc[:, :-1].to_numpy(dtype=np.float64)  # (N, 64): pixel_0_0, pixel_0_1, ..., pixel_7_7
    X = pixels.reshape(-1, DIGITS_SIDE, DIGITS_SIDE)  # (N, 8, 8): row-major, the first 8 columns are the top row
    y = table["label"].to_numpy(dtype=np.int64)  # (N,)
    return X, y


@checked(split=one_of(PERSUASION_SPLITS, "Pass split='train' or split='validation' for the two parts, split='all' "
                                          "for the novel."),
         data_dir=folder_holding("persuasion.txt"))
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
        :func:`verify_checksum`), or its content is damaged (empty, not UTF-8 text, fewer than ten paragraphs);
        if ``split`` is not one of the three names.
    TypeError
        If ``data_dir`` is not a path, or ``split`` is not a str.
    """
    path = _files.file_in(data_dir, "persuasion.txt")
    text = _files.decode_text(path, verified_bytes(path))
    paragraphs = text.split("\n\n")  # (P,) the last one ends with the file's final "\n"
    if len(paragraphs) < PERSUASION_VALIDATION_SHARE:
        raise _files.damaged(path, f"has {len(paragraphs)} paragraph(s); expected the novel's 1,035, and at least "
                                   f"{PERSUASION_VALIDATION_SHARE} for a validation text")
    if split == "all":
        return text
    n_train = len(paragraphs) - len(paragraphs) // PERSUASION_VALIDATION_SHARE
    train = "\n\n".join(paragraphs[:n_train]) + "\n\n"
    return train if split == "train" else text[len(train):]

