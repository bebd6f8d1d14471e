"""Headless Chromium from the system's packages, driven by Selenium, for the page tests.

CI installs `chromium` and `chromium-driver` (`.ci/run`), so there a missing browser fails the tests; on a
developer's machine without them the browser tests are skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from tests.support.paths import ROOT

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
ARTIFACTS = Path(os.environ.get("SWISSBOT_ARTIFACTS", ROOT / "build" / "artifacts"))


def chromium_paths() -> tuple[str, str] | None:
    """The browser and its driver, when both are installed."""
    browser = next((found for name in BROWSERS if (found := shutil.which(name))), None)
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def require_chromium() -> tuple[str, str]:
    """The browser and driver; in CI their absence is a failure, elsewhere a skip."""
    paths = chromium_paths()
    if paths is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium and chromedriver must be installed in CI (.ci/run installs them)")
        pytest.skip("Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    return paths


@contextmanager
def chromium(width: int = 1100, height: int = 900) -> Iterator[webdriver.Chrome]:
    """A headless Chromium session (no network but loopback is ever asked of it)."""
    browser, driver = require_chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(flag)
    session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    session.set_page_load_timeout(20)
    try:
        yield session
    finally:
        session.quit()


def keep_screenshot(session: webdriver.Chrome, name: str) -> Path:
    """Save a screenshot of the page as a test artifact (build/artifacts/, or $SWISSBOT_ARTIFACTS)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    session.get_screenshot_as_file(str(path))
    return path
