"""Writing the synthetic corpus to a file, and the command line that does it."""

from __future__ import annotations

import argparse
import gzip
import io
import json
import time
from pathlib import Path

from devtools.corpus.generator import CorpusGenerator, CorpusStats


def default_path(base_dir: Path, n_works: int, compress: bool) -> Path:
    return Path(base_dir) / "var" / "corpus" / f"works-{n_works}.jsonl{'.gz' if compress else ''}"


def write_corpus(
    path: Path,
    n_works: int,
    *,
    n_authors: int | None = None,
    seed: int = 0,
    compress: bool = False,
) -> CorpusStats:
    """Stream a corpus to ``path`` (gzip with a fixed header when ``compress``)."""
    started = time.perf_counter()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    generator = CorpusGenerator(n_works, n_authors=n_authors, seed=seed)
    encode = json.JSONEncoder(ensure_ascii=False).encode
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as raw:
        # mtime=0 and no file name in the header: the same seed gives the same bytes.
        stream = (
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0, filename="")
            if compress
            else raw
        )
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="\n", write_through=False)
        buffer: list[str] = []
        for work in generator.works():
            buffer.append(encode(work))
            if len(buffer) >= 1000:
                text.write("\n".join(buffer) + "\n")
                buffer.clear()
        if buffer:
            text.write("\n".join(buffer) + "\n")
        text.flush()
        text.detach()
        if compress:
            stream.close()
    tmp.replace(path)
    stats = generator.stats
    stats.seconds = time.perf_counter() - started
    stats.path = str(path)
    stats.bytes_written = path.stat().st_size
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.corpus",
        description=(
            "Write a deterministic synthetic corpus of fake works in OpenAlex snapshot format "
            "(one Work per line). Ids are in reserved ranges (W8…, A8…); names are made up."
        ),
    )
    parser.add_argument("--works", type=int, required=True, help="number of works (N)")
    parser.add_argument("--authors", type=int, default=None, help="author pool (default N/4)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--out", type=Path, default=None, help="output file (default var/corpus/works-N.jsonl)"
    )
    parser.add_argument("--gzip", action="store_true", help="gzip the output")
    args = parser.parse_args(argv)
    if args.works < 1:
        parser.error("--works must be at least 1")
    if args.authors is not None and args.authors < 1:
        parser.error("--authors must be at least 1")
    compress = args.gzip or (args.out is not None and args.out.suffix == ".gz")
    base = Path(__file__).resolve().parents[2]
    path = args.out or default_path(base, args.works, compress)
    stats = write_corpus(
        path, args.works, n_authors=args.authors, seed=args.seed, compress=compress
    )
    print(stats.summary())


if __name__ == "__main__":
    main()
