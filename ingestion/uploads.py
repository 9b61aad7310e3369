"""Recorded files uploaded by staff for an offline import.

The content is sniffed before anything is stored (the name and the browser's
type prove nothing): OpenAlex JSON (an entity, a list page) or snapshot JSON
Lines, gzipped or not, or an arXiv Atom feed. An accepted file is kept under
``IMPORT_UPLOAD_DIR`` with a generated name; the run reads it from there,
through the same reader as ``manage.py import_file``.
"""

from __future__ import annotations

import re
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

from catalogue.models import Source
from ingestion.sources.files import ATOM_NAMESPACE, GZIP_MAGIC

SNIFF_BYTES = 64 * 1024  # of the (unpacked) start of a file: enough to see what it is
SUFFIXES = {Source.OPENALEX: ".json", Source.ARXIV: ".atom"}


@dataclass(frozen=True)
class Sniffed:
    source: str  # Source.OPENALEX or Source.ARXIV
    gzipped: bool
    label: str  # what the file is, in words


def _head(upload: UploadedFile) -> tuple[bytes, bool]:
    upload.seek(0)
    start = upload.read(SNIFF_BYTES)
    upload.seek(0)
    if not start.startswith(GZIP_MAGIC):
        return start, False
    unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        head = unpack.decompress(start, SNIFF_BYTES)
    except zlib.error:
        raise ValidationError("This file starts like gzip but cannot be unpacked.") from None
    return head, True


def sniff(upload: UploadedFile) -> Sniffed:
    """What ``upload`` holds, or a ValidationError that says why it cannot be imported."""
    head, gzipped = _head(upload)
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    packed = "gzipped " if gzipped else ""
    if not text:
        raise ValidationError("This file is empty.")
    if text[:1] in (b"{", b"["):
        return Sniffed(Source.OPENALEX, gzipped, f"{packed}OpenAlex JSON")
    if text[:1] == b"<":
        if re.search(rb"<(?:\w+:)?feed\b", text) and ATOM_NAMESPACE in text:
            return Sniffed(Source.ARXIV, gzipped, f"{packed}arXiv Atom feed")
        raise ValidationError("This XML file is not an Atom feed (arXiv answers in Atom).")
    raise ValidationError(
        "This file is not OpenAlex JSON, JSON Lines or an arXiv Atom feed (gzipped or not)."
    )


def check_size(upload: UploadedFile) -> None:
    limit = settings.IMPORT_UPLOAD_MAX_BYTES
    if upload.size is not None and upload.size > limit:
        raise ValidationError(
            f"This file is {size_text(upload.size)}; uploads take at most {size_text(limit)}. "
            "Import larger files with manage.py import_file."
        )


def size_text(size: int) -> str:
    """A size in megabytes, as staff read it."""
    return f"{size / 1_000_000:,.1f} MB"


def upload_store(*, upload: UploadedFile, sniffed: Sniffed) -> Path:
    """Keep ``upload`` under IMPORT_UPLOAD_DIR with a generated name; return its path."""
    folder = Path(settings.IMPORT_UPLOAD_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    suffix = SUFFIXES[sniffed.source] + (".gz" if sniffed.gzipped else "")
    path = folder / f"upload-{uuid.uuid4().hex}{suffix}"
    upload.seek(0)
    with path.open("xb") as out:  # x: never over a file that is there
        for chunk in upload.chunks():
            out.write(chunk)
    return path


def display_name(name: str) -> str:
    """The uploaded file's own name, for staff to recognise it: no path, no control characters."""
    base = re.split(r"[\\/]", name or "")[-1]
    return "".join(ch for ch in base if ch.isprintable())[:120] or "upload"
