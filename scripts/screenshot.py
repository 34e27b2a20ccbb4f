"""Take the README's screenshot of the web page: the boltgun scenario and its result.

Usage: ``python scripts/screenshot.py [OUTPUT]`` (``make screenshot`` writes
``docs/screenshot.png``). Starts the page on a free port of 127.0.0.1 with the
installed plugins, opens a link holding ``examples/boltguns.toml`` in
headless Chromium (Debian's ``chromium`` and ``chromedriver``, never a
downloaded one) and saves the window once the result and its charts are drawn.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from mathhammer.face.web.app import create_app
from mathhammer.face.web.links import fragment
from mathhammer.face.web.serve import running
from mathhammer.registry import default_registry
from mathhammer.scenario import read_toml

ROOT = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1280, 1500


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", default=str(ROOT / "docs" / "screenshot.png"))
    args = parser.parse_args()
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_path:
        print("screenshot: needs chromium and chromedriver (apt-get install chromium chromium-driver)", file=sys.stderr)
        return 1
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars", "--lang=en-US"):
        options.add_argument(arg)
    browser = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        browser.set_window_size(WIDTH, HEIGHT)
        with running(create_app(registry=default_registry())) as url:
            browser.get(url + fragment(read_toml(ROOT / "examples" / "boltguns.toml")))
            deadline = time.monotonic() + 60
            while not browser.find_elements("css selector", "#result:not([hidden]) .chart .plot-container"):
                if time.monotonic() > deadline:
                    print("screenshot: the result did not appear within a minute", file=sys.stderr)
                    return 1
                time.sleep(0.1)
            time.sleep(0.5)  # let plotly finish laying out
            browser.execute_script("document.querySelector('fieldset.run').scrollIntoView({block: 'start'})")
            browser.save_screenshot(args.output)
    finally:
        browser.quit()
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
