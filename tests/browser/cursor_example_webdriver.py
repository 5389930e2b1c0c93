#!/usr/bin/env python3
"""Clicks through examples/cursor_http.cpp's page in headless Chromium, over chromedriver's W3C WebDriver
HTTP API (standard library only): the first page, Next, Previous, a page link, and a jump by page number,
checking the rows shown after each against the list's ids.

    cursor_example_webdriver.py BASE_URL EXPECTED_IDS_FILE

EXPECTED_IDS_FILE holds the list's ids in its order, one a line. Exits 1 with one line on a failure.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DEADLINE_SECONDS = 20
PAGE_SIZE = 20
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C key of an element reference


class Failure(Exception):
    pass


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebDriver:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.session = None

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=DEADLINE_SECONDS) as response:
                return json.load(response)["value"]
        except urllib.error.HTTPError as error:
            raise Failure(f"WebDriver {method} {path}: {error.code} {error.read()[:300]!r}") from None

    def wait_ready(self, driver):
        deadline = time.monotonic() + DEADLINE_SECONDS
        while time.monotonic() < deadline:
            if driver.poll() is not None:
                raise Failure(f"chromedriver exited with {driver.returncode}")
            try:
                if self.call("GET", "/status").get("ready"):
                    return
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.05)
        raise Failure("chromedriver did not become ready")

    def start(self, profile):
        options = {"binary": CHROMIUM, "args": CHROMIUM_FLAGS + [f"--user-data-dir={profile}"]}
        value = self.call("POST", "/session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": options}}})
        self.session = value["sessionId"]

    def s(self, path):
        return f"/session/{self.session}{path}"

    def open(self, url):
        self.call("POST", self.s("/url"), {"url": url})

    def find(self, using, value):
        return self.call("POST", self.s("/element"), {"using": using, "value": value})[ELEMENT]

    def click(self, using, value):
        self.call("POST", self.s(f"/element/{self.find(using, value)}/click"), {})

    def type(self, css, text):
        self.call("POST", self.s(f"/element/{self.find('css selector', css)}/value"), {"text": text})

    def text(self, css):
        return self.call("GET", self.s(f"/element/{self.find('css selector', css)}/text"))

    def shown_ids(self):
        script = "return Array.from(document.querySelectorAll('#rows tr')).map(r => r.cells[0].textContent)"
        return self.call("POST", self.s("/execute/sync"), {"script": script, "args": []})

    def quit(self):
        if self.session:
            try:
                self.call("DELETE", self.s(""))
            except (Failure, urllib.error.URLError, ConnectionError):
                pass


def expect_page(driver, status, ids, label):
    """Waits until the page's status line reads `status`, then checks the rows shown."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    shown = None
    while time.monotonic() < deadline:
        shown = driver.text("#status")
        if shown == status:
            break
        time.sleep(0.05)
    else:
        raise Failure(f"{label}: the status stayed '{shown}', expected '{status}' (error: '{driver.text('#error')}')")
    rows = driver.shown_ids()
    if rows != ids:
        raise Failure(f"{label}: rows {rows}, expected {ids}")
    print(f"{label}: {status}, ids {ids[0]}..{ids[-1]}")


def walk(driver, base_url, expected):
    page = lambda number: expected[(number - 1) * PAGE_SIZE:number * PAGE_SIZE]
    driver.open(base_url + "/")
    expect_page(driver, "page 1 (keyset)", page(1), "opened")
    driver.click("css selector", "#next")
    expect_page(driver, "page 2 (keyset)", page(2), "Next")
    driver.click("css selector", "#next")
    expect_page(driver, "page 3 (keyset)", page(3), "Next again")
    driver.click("css selector", "#prev")
    expect_page(driver, "page 2 (keyset)", page(2), "Previous")
    driver.click("link text", "5")
    expect_page(driver, "page 5 (keyset)", page(5), "the link to page 5")
    driver.click("link text", "1")
    expect_page(driver, "page 1 (keyset)", page(1), "the link to page 1")
    driver.type("#jump", "8")
    driver.click("css selector", "#go")
    expect_page(driver, "page 8 (exact)", page(8), "a jump to page 8")


def main():
    if len(sys.argv) != 3:
        print("usage: cursor_example_webdriver.py BASE_URL EXPECTED_IDS_FILE", file=sys.stderr)
        return 2
    base_url, expected_file = sys.argv[1], sys.argv[2]
    with open(expected_file) as lines:
        expected = [line.strip() for line in lines if line.strip()]
    port = free_port()
    profile = tempfile.mkdtemp(prefix="rp-chromium-")
    chromedriver = subprocess.Popen([CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
    driver = WebDriver(port)
    try:
        driver.wait_ready(chromedriver)
        driver.start(profile)
        walk(driver, base_url, expected)
        print("the example's page in Chromium: Next, Previous, page links and a jump show the right rows")
        return 0
    except Failure as failure:
        print(f"cursor_example_webdriver: {failure}", file=sys.stderr)
        return 1
    finally:
        driver.quit()
        chromedriver.terminate()
        try:
            chromedriver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            chromedriver.kill()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
