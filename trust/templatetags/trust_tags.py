from django import template

register = template.Library()


@register.inclusion_tag("trust/_snapshot.html", takes_context=True)
def trust_snapshot(context, author):
    """The trust snapshot of a researcher page."""
    return {"author": author, "request": context.get("request")}
