"""The run report in headless Chromium (Debian ``chromium``): the page loads, its images render,
injected markup does not run, and a screenshot shows the known image colours."""
import re
import shutil
import subprocess

import pytest
from PIL import Image

from ham.report.viewer import write_run_report
from tests.analysis.grid_fixture import BLUE, RED, make_viewer_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed "
                                                          "(apt-get install -y chromium; .ci/run installs it)")]


def _chromium(tmp_path, *args):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--no-first-run", "--disable-sync", "--hide-scrollbars",
           f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)


def _near(pixel, colour, tol=12):
    return all(abs(a - b) <= tol for a, b in zip(pixel, colour))


def test_report_renders_in_chromium(tmp_path):
    report = write_run_report(make_viewer_run(tmp_path))
    url = report.resolve().as_uri()
    dom = _chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", url).stdout
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-images-shown="3"' in body and 'data-images-loaded="3"' in body, body
    assert 'data-pwned="1"' not in body and "<title>pwned" not in dom, "escaped markup never runs"
    banner = re.search(r'<p id="broken"[^>]*>([^<]*)</p>', dom)
    assert "hidden" not in banner.group(0) and "figures/gone.png" in banner.group(1)

    shot = tmp_path / "shot.png"
    _chromium(tmp_path, "--window-size=1200,3200", f"--screenshot={shot}", url)
    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 22)
    assert colours is not None and len(colours) > 50, "not a blank page"
    red = sum(n for n, c in colours if _near(c, RED))
    blue = sum(n for n, c in colours if _near(c, BLUE))
    assert red > 2 * 160 * 100 * 0.8, "both red images (answer and reference of q1) are drawn"
    assert blue > 160 * 100 * 0.8, "the blue reference image of q2 is drawn"
