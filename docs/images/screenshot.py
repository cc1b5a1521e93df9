"""Take docs/images/dashboard.png: `gridmarket dashboard` in headless Chromium, a run under way.

Run from the project's top folder: `.venv/bin/python docs/images/screenshot.py` (needs Debian's
chromium at /usr/bin/chromium and playwright, a dev dependency; no `playwright install`).
"""

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright import sync_api

OUT = Path(__file__).with_name("dashboard.png")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    port = free_port()
    gridmarket = Path(sys.executable).with_name("gridmarket")
    server = subprocess.Popen([str(gridmarket), "dashboard", "--port", str(port)])
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(url, timeout=2):
                    break
            except OSError:
                time.sleep(0.2)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--headless", "--no-sandbox", "--disable-gpu"],
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            page.goto(url)
            page.wait_for_selector("#sim-time")
            page.fill("#until", "60")
            page.click("#run-until")  # 60 h of the default scenario's 200 jobs
            page.wait_for_function(
                "() => document.querySelector('#sim-time').innerText.includes('60')"
            )
            page.wait_for_timeout(3000)
            page.screenshot(path=str(OUT), full_page=False)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(OUT)


if __name__ == "__main__":
    main()
