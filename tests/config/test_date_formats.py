"""Every public page writes a full date one way, "18 Jun 2021" (with a time: "18 Jun 2021 14:05").

Machine-readable dates (the datetime attribute, metadata) keep ISO 8601. The admin has its own
conventions and is left out.
"""

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
SHOWN = {"j M Y", "j M Y H:i", "j M H:i"}
MACHINE = {"Y-m-d", r"Y-m-d\TH:i:sO"}


def date_formats():
    for path in sorted(TEMPLATES.rglob("*.html")):
        if "admin" in path.relative_to(TEMPLATES).parts:
            continue
        for found in re.finditer(r"""\|date:(["'])(.*?)\1""", path.read_text("utf-8")):
            yield path.relative_to(TEMPLATES), found.group(2)


def test_public_pages_write_dates_in_one_format():
    odd = [(str(path), fmt) for path, fmt in date_formats() if fmt not in SHOWN | MACHINE]
    assert not odd, f"dates written another way: {odd}"
    assert any(fmt == "j M Y" for _, fmt in date_formats())
