"""The explorer's filter form: the year range as one group, kinds with nothing switched off."""

import pytest
from django.urls import reverse
from lxml import html

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]


def form_of(client, pk: int, query: dict | None = None):
    response = client.get(reverse("graph:explorer", args=[pk]), query or {})
    page = html.fromstring(response.content.decode())
    return page.xpath("//form[contains(@class, 'graph-filters')]")[0]


def kind_box(form, kind: str):
    return form.xpath(f".//fieldset[legend='Show']//input[@name='kinds'][@value='{kind}']")[0]


def test_the_year_range_is_one_group_read_from_and_to(client, known):
    form = form_of(client, known.pk("ada"))
    (years,) = form.xpath(".//fieldset[legend='Years']")
    fields = [box.get("id") for box in years.xpath(".//input")]
    assert fields == ["id_year_from", "id_year_to"]
    labels = [label.text_content().strip() for label in years.xpath(".//label")]
    assert labels == ["from", "to"]


def test_a_kind_with_nothing_to_show_is_switched_off_and_says_why(client, known):
    form = form_of(client, known.pk("ada"))  # no topics and no citations in this graph
    note = form.get_element_by_id("graph-kinds-empty").text_content()
    assert "topics" in note and "none around Ada Example" in note
    for kind in ("topic", "citations"):
        box = kind_box(form, kind)
        assert box.get("disabled") is not None and box.get("checked") is None
        assert box.get("aria-describedby") == "graph-kinds-empty"
    for kind in ("person", "paper", "institution"):
        box = kind_box(form, kind)
        assert box.get("disabled") is None and box.get("checked") is not None
    assert "institutions" not in note


def test_a_kind_the_visitor_switched_off_can_be_switched_on_again(client, known):
    form = form_of(client, known.pk("ada"), {"kinds": ["person"]})
    for kind in ("paper", "institution"):
        box = kind_box(form, kind)
        assert box.get("disabled") is None and box.get("checked") is None
        count = box.getparent().xpath("span[@class='chip']")[0].text_content()
        assert int(count) > 0  # what it would show, not the zero of a hidden kind
    assert kind_box(form, "topic").get("disabled") is not None
