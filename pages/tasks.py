"""Celery tasks of the public pages: list entries, "More like this" lists, and work and
researcher summaries and researchers' works sections drawn ahead of their readers."""

from __future__ import annotations

from celery import shared_task

from pages import (
    entries,
    researcher_summaries,
    researcher_works,
    researchers,
    similar,
    summaries,
    works,
)


@shared_task(name="pages.tasks.draw_entries")
def draw_entries(work_ids: list[int]) -> int:
    """Draw and keep the list entries of these works (``pages.entries``)."""
    return entries.entries_refresh(work_ids)


@shared_task(name="pages.tasks.draw_similar_lists")
def draw_similar_lists(work_ids: list[int]) -> int:
    """Draw and keep the "More like this" lists of these works (``pages.similar``)."""
    return similar.lists_refresh(work_ids)


@shared_task(name="pages.tasks.draw_summaries")
def draw_summaries(work_ids: list[int]) -> int:
    """Draw and keep the work pages' summaries of these works (``pages.summaries``)."""
    return summaries.summaries_refresh(work_ids)


@shared_task(name="pages.tasks.draw_work_pages")
def draw_work_pages(work_ids: list[int]) -> int:
    """Draw and keep these works' pages whole as a visitor without cookie or query string
    sees them (``pages.work_pages``), from their kept parts."""
    return works.pages_refresh(work_ids)


@shared_task(name="pages.tasks.draw_researcher_summaries")
def draw_researcher_summaries(author_ids: list[int]) -> int:
    """Draw and keep the researcher pages' summaries of these researchers
    (``pages.researcher_summaries``)."""
    return researcher_summaries.summaries_refresh(author_ids)


@shared_task(name="pages.tasks.draw_researcher_works")
def draw_researcher_works(author_ids: list[int]) -> int:
    """Draw and keep the works sections of these researchers' pages as a visitor without
    a query string sees them (``pages.researcher_works``), then their pages whole as
    such a visitor without a cookie sees them (``pages.researcher_pages``)."""
    drawn = researcher_works.sections_refresh(author_ids)
    researchers.pages_refresh(author_ids)
    return drawn
