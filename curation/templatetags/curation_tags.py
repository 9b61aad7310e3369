"""The staff front page of the admin (see curation.home)."""

from django import template

from curation import home as curation_home

register = template.Library()


@register.inclusion_tag("admin/_curation_home.html", takes_context=True)
def curation_home_panel(context):
    request = context["request"]
    return {"waiting": curation_home.waiting(request), "running": curation_home.running(request)}
