"""``/institutions/<id>-<slug>/``, ``/venues/<id>-<slug>/`` and ``/topics/<id>-<slug>/``."""

from django.urls import path

from publications.entity_views import entity_detail


def _patterns(kind: str, namespace: str):
    return (
        [
            path("<int:pk>-<slug:slug>/", entity_detail, {"kind": kind}, name="detail"),
            path("<int:pk>/", entity_detail, {"kind": kind}, name="short"),
        ],
        namespace,
    )


institution_patterns = _patterns("institution", "institutions")
venue_patterns = _patterns("venue", "venues")
topic_patterns = _patterns("topic", "topics")
