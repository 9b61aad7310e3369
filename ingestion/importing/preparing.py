"""Preparing a batch: checked against what is stored, hashed and mapped, ready to write."""

from __future__ import annotations

from catalogue.identifiers import normalize_openalex_id
from catalogue.models import ImportRun, Source, SourceRecord
from ingestion.importing.ingesting import WORK_ENTITIES, map_all
from ingestion.importing.problems import problem_for, source_error_problem
from ingestion.ingest.batch import Precomputed
from ingestion.ingest.hashing import hashed
from ingestion.ingest.lookups import stored_records
from ingestion.ingest.merge import new_work
from ingestion.ingest.rows import update_column
from ingestion.sources.lines import RawLine


def record_identity(entity: str, payload) -> tuple[str, str, str] | None:
    """(source, entity, external id) of a payload as its mapper will key it, if that is cheap."""
    if isinstance(payload, RawLine):  # a work's line, read only if it changed
        openalex_id = normalize_openalex_id(payload.key)
        return (Source.OPENALEX, SourceRecord.Entity.WORK, openalex_id) if openalex_id else None
    if not isinstance(payload, dict):
        return None
    if entity == "arxiv":
        arxiv_id = payload.get("arxiv_id")
        return (Source.ARXIV, SourceRecord.Entity.WORK, arxiv_id) if arxiv_id else None
    kind = {"work": SourceRecord.Entity.WORK, "author": SourceRecord.Entity.AUTHOR}.get(entity)
    openalex_id = normalize_openalex_id(payload.get("id")) if kind else None
    return (Source.OPENALEX, kind, openalex_id) if openalex_id else None


class PreparedBatch:
    """A batch checked against what is stored, hashed and mapped, ready to be written.

    The stored hashes are read here, in the caller's thread; hashing and mapping run
    in ``mapper`` when given. A payload unchanged since it was stored is not
    mapped, and a file line (``RawLine``) that is the very line stored is not even
    parsed. A batch prepared while the one before it is still being written must
    be rechecked (``recheck``) with what that one wrote before use.
    """

    def __init__(self, run: ImportRun, entity: str, payloads: list, mapper=None, turns=None):
        self.run, self.entity, self.turns = run, entity, turns
        self.keyed = [(record_identity(entity, p), p) for p in payloads]
        ids = {key[2] for key, _ in self.keyed if key}
        self.source, self.stored, self.ahead = None, {}, Precomputed()
        self.relined: list[tuple[int, str]] = []  # (source record, line digest) to keep
        if ids:
            self.source, kind = next((key[0], key[1]) for key, _ in self.keyed if key)
            self.stored = stored_records(self.source, kind, ids)
            if kind == SourceRecord.Entity.WORK:  # what writing the works would read again
                self.ahead.checked = {(self.source, i) for i in ids}
                self.ahead.stored = {(self.source, i): row for i, row in self.stored.items()}
        self.future = mapper.submit(self._prepare) if mapper else None
        self.outcome = None if mapper else self._prepare()

    def _prepare(self):
        pause = self.turns.pause if self.turns else None
        changed, unreadable, self.taken, self.unchanged = [], [], set(), 0
        for key, payload in self.keyed:
            if pause:
                pause()
            document, problem = self._examine(key, payload)
            if problem is not None:
                unreadable.append(problem)
            elif document is not None:
                changed.append(document)
            else:
                self.unchanged += 1
                continue
            self.taken.add(id(payload))
        mapped, problems = map_all(self.run, self.entity, changed, pause)
        if self.entity in WORK_ENTITIES:
            for _, record in mapped:
                if pause:
                    pause()
                self.ahead.drafts[id(record)] = new_work(record)
        return changed, self.ahead, mapped, unreadable + problems

    def _examine(self, key, payload, *, again: bool = False):
        """(the payload to write, None), (None, the problem it is) or (None, None): unchanged.

        ``again``: the record was rewritten by an earlier batch, so it is written
        whatever is stored.
        """
        row = self.stored.get(key[2]) if key and not again else None
        linked = bool(row and row.linked)
        if isinstance(payload, RawLine):
            if linked and row.line_digest == payload.digest:
                return None, None  # the very line stored: not even parsed
            line, (payload, error) = payload.digest, payload.read()
            if error is not None:
                return None, source_error_problem(self.run, error)
            self.ahead.lines[id(payload)] = line
        if key is None:
            return payload, None
        try:
            digest = hashed(payload)
        except ValueError as exc:  # e.g. NaN next to an integer past 64 bits
            return None, problem_for(self.run, payload, f"Could not read this record: {exc}")
        if linked and row.content_hash == digest.digest:
            line = self.ahead.lines.get(id(payload))
            if line and line != row.line_digest:  # the same record, on a line written anew
                self.relined.append((row.pk, line))
            return None, None
        self.ahead.hashes[id(payload)] = digest
        return payload, None

    def recheck(self, rewritten: set[str]) -> None:
        """Payloads found unchanged whose record the previous batch rewrote are written too."""
        if not rewritten:
            return
        changed, ahead, mapped, problems = self.result()
        for key in {(self.source, external_id) for external_id in rewritten}:
            ahead.checked.discard(key)  # read before the batch before wrote them: read again
            ahead.stored.pop(key, None)
        again, more_problems = [], []
        for key, payload in self.keyed:
            if not key or key[2] not in rewritten or id(payload) in self.taken:
                continue
            self.taken.add(id(payload))
            self.unchanged -= 1
            document, problem = self._examine(key, payload, again=True)
            if problem is not None:
                more_problems.append(problem)
            else:
                again.append(document)
        stale = {self.stored[i].pk for i in rewritten if i in self.stored}
        self.relined = [(pk, line) for pk, line in self.relined if pk not in stale]
        if again or more_problems:
            more, mapping_problems = map_all(self.run, self.entity, again)
            more_problems += mapping_problems
            self.outcome = (changed + again, ahead, mapped + more, problems + more_problems)

    def result(self):
        """(changed payloads, a ``Precomputed``, (payload, record) pairs, problems)."""
        if self.outcome is None:
            if self.turns:
                with self.turns.waiting():
                    self.outcome = self.future.result()
            else:
                self.outcome = self.future.result()
        return self.outcome

    def keep_line_digests(self) -> None:
        """Remember the lines found to hold records already stored, to skip them next time."""
        update_column(SourceRecord, "line_digest", self.relined)

    def forget_reads(self) -> None:
        """Before writing the batch again: what was read from the database may have changed."""
        self.result()[1].forget_reads()

    def external_ids(self, changed: list, mapped: list) -> set[str]:
        keys = {id(p): key[2] for key, p in self.keyed if key}
        ids = {keys[id(p)] for p in changed if id(p) in keys}
        return ids | {getattr(record, "external_id", "") for _, record in mapped}
