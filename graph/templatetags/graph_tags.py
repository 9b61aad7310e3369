from django import template

register = template.Library()


@register.inclusion_tag("graph/_section.html", takes_context=True)
def graph_section(context, author):
    """The research graph section of a researcher page."""
    return {"author": author, "request": context.get("request")}
