"""Headless Chromium for the browser tests (tests/site, tests/lab): one set of flags, one rule for a missing browser.

Chromium and its driver come from Debian (``chromium``, ``chromium-driver``). Without them a browser test module is
skipped with a one-line reason, unless the environment variable ``CI`` is set (to anything but empty, 0, false or
no): in CI a missing browser is a failure.
"""

import os
import shutil

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def missing_browser():
    """None when Chromium and its driver are installed, else what is missing and how to install it."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if shutil.which(p) is None]
    return f"{', '.join(missing)} not found (apt-get install chromium chromium-driver)" if missing else None


def under_ci():
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_browser(what):
    """At a test module's top: skip the module without a browser, or fail it under CI."""
    reason = missing_browser()
    if reason:
        if under_ci():
            pytest.fail(f"{what} cannot run under CI: {reason}", pytrace=False)
        pytest.skip(f"{what} skipped: {reason}", allow_module_level=True)


def start_chrome(window_size="1280,900"):
    """A headless Chromium that makes no connection of its own (no updates, sync or background requests)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", f"--window-size={window_size}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    return driver
