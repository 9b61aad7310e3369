"""factory_boy factories and the people tests talk about."""

import factory
from django.contrib.auth import get_user_model

from catalogue.identifiers import normalize_name, normalize_title
from catalogue.models import Author, Authorship, Institution, Source, Venue, Work


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.django.Password("correct horse battery staple")


def grant(user, *perms: str):
    """Give ``user`` model permissions named as ``app_label.codename``; return the user."""
    from django.contrib.auth.models import Permission

    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return user


class InstitutionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Institution

    name = factory.Sequence(lambda n: f"University {n}")
    homepage_url = factory.LazyAttribute(lambda i: f"https://{i.homepage_domain}/")
    homepage_domain = factory.Sequence(lambda n: f"uni{n}.example.edu")


class VenueFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Venue

    name = factory.Sequence(lambda n: f"Journal of Examples {n}")
    type = "journal"


class AuthorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Author

    display_name = factory.Sequence(lambda n: f"Ada Example{n}")
    normalized_name = factory.LazyAttribute(lambda a: normalize_name(a.display_name))


class WorkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Work

    title = factory.Sequence(lambda n: f"A study of example number {n}")
    normalized_title = factory.LazyAttribute(lambda w: normalize_title(w.title))
    publication_year = 2021
    type = Work.Type.ARTICLE


class AuthorshipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Authorship

    work = factory.SubFactory(WorkFactory)
    author = factory.SubFactory(AuthorFactory)
    position = 0
    raw_name = factory.LazyAttribute(lambda a: a.author.display_name)
    source = Source.OPENALEX
