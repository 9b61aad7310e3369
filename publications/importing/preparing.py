"""Preparing a batch: checked against what is stored, hashed and mapped, ready to write."""

from __future__ import annotations

from publications.identifiers import normalize_openalex_id
from publications.importing.ingesting import WORK_ENTITIES, map_all
from publications.importing.problems import problem_for
from publications.ingest.batch import Precomputed
from publications.ingest.hashing import hashed
from publications.ingest.lookups import stored_records
from publications.ingest.merge import new_work
from publications.models import ImportRun, Source, SourceRecord


def record_identity(entity: str, payload) -> tuple[str, str, str] | None:
    """(source, entity, external id) of a payload as its mapper will key it, if that is cheap."""
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
    in ``mapper`` when given (a payload unchanged since it was stored is not
    mapped). A batch prepared while the one before it is still being written
    must be rechecked (``recheck``) with what that one wrote before use.
    """

    def __init__(self, run: ImportRun, entity: str, payloads: list, mapper=None, turns=None):
        self.run, self.entity, self.turns = run, entity, turns
        self.keyed = [(record_identity(entity, p), p) for p in payloads]
        ids = {key[2] for key, _ in self.keyed if key}
        self.source, self.stored, self.ahead = None, {}, Precomputed()
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
        changed, ahead, unreadable, quarantined = [], self.ahead, [], set()
        for key, payload in self.keyed:
            if pause:
                pause()
            if key is None:
                changed.append(payload)
                continue
            try:
                digest = hashed(payload)
            except ValueError as exc:  # e.g. NaN next to an integer past 64 bits
                unreadable.append(
                    problem_for(self.run, payload, f"Could not read this record: {exc}")
                )
                changed.append(payload)  # counted as a problem, not as unchanged
                quarantined.add(id(payload))
                continue
            row = self.stored.get(key[2])
            if not (row and row.linked and row.content_hash == digest.digest):
                changed.append(payload)
                ahead.hashes[id(payload)] = digest
        readable = [p for p in changed if id(p) not in quarantined]
        mapped, problems = map_all(self.run, self.entity, readable, pause)
        problems = unreadable + problems
        if self.entity in WORK_ENTITIES:
            for _, record in mapped:
                if pause:
                    pause()
                ahead.drafts[id(record)] = new_work(record)
        return changed, ahead, mapped, problems

    def recheck(self, rewritten: set[str]) -> None:
        """Payloads found unchanged whose record the previous batch rewrote are written too."""
        if not rewritten:
            return
        changed, ahead, mapped, problems = self.result()
        for key in {(self.source, external_id) for external_id in rewritten}:
            ahead.checked.discard(key)  # read before the batch before wrote them: read again
            ahead.stored.pop(key, None)
        seen = {id(p) for p in changed}
        again = [p for key, p in self.keyed if key and key[2] in rewritten and id(p) not in seen]
        if again:
            more, more_problems = map_all(self.run, self.entity, again)
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

    def forget_reads(self) -> None:
        """Before writing the batch again: what was read from the database may have changed."""
        self.result()[1].forget_reads()

    def external_ids(self, changed: list, mapped: list) -> set[str]:
        keys = {id(p): key[2] for key, p in self.keyed if key}
        ids = {keys[id(p)] for p in changed if id(p) in keys}
        return ids | {getattr(record, "external_id", "") for _, record in mapped}
