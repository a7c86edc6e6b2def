"""Playwright fixtures: a headless Debian Chromium driving pytest-django's live server.

Loaded for every folder by the root conftest's ``pytest_plugins``. Tests using these fixtures
need ``@pytest.mark.browser`` (tests/architecture/test_test_markers.py checks it) and
``@pytest.mark.django_db(transaction=True)``: the live server answers from another thread, so
test data must be committed to be seen.
"""

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, ConsoleMessage, Page, expect, sync_playwright

# Playwright's sync API keeps an asyncio loop running on the test thread; Django would then
# refuse ORM calls made by the test itself (building data, checking results).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# No sandbox (containers), no GPU, and nothing that tries to reach the network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
LAPTOP = {"width": 1366, "height": 768}


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), (
        f"Chromium not found at {CHROMIUM}: install Debian's chromium package "
        "(apt-get install chromium) or set CHROMIUM_PATH; never run `playwright install`"
    )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh browser context (no cookies) at laptop size, one per test."""
    context = browser.new_context(viewport=LAPTOP)
    context.set_default_timeout(10_000)
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture
def page_errors(page: Page) -> list[str]:
    """JavaScript errors and console errors the page reports; assert it stays empty."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: _record_console_error(errors, msg))
    return errors


def _record_console_error(errors: list[str], msg: ConsoleMessage) -> None:
    if msg.type == "error":
        errors.append(f"console: {msg.text} at {msg.location.get('url', '?')}")


@pytest.fixture
def login(page: Page, live_server) -> Callable[[str, str], Page]:
    """Log in through the real login form; returns the page, now on where login led."""

    def log_in(username: str, password: str) -> Page:
        page.goto(live_server.url + reverse("login"))
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("form button[type=submit]")
        expect(page.locator("header .account")).to_contain_text(username)
        return page

    return log_in


@pytest.fixture
def screenshot(page: Page, tmp_path: Path) -> Callable[[str], Path]:
    """Save a full-page screenshot under tmp_path (and $BROWSER_SCREENSHOT_DIR when set)."""

    def take(name: str) -> Path:
        path = tmp_path / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        if keep := os.environ.get("BROWSER_SCREENSHOT_DIR"):
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(keep) / path.name)
        return path

    return take
