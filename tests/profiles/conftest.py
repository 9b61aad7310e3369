"""The people the claim, ownership and API tests talk about.

A record (``author``) is held by ``owner``; ``follower`` follows it; ``stranger``
has no tie to it; ``staff`` reviews claims.
"""

import pytest

from profiles.models import Follow
from tests.factories import AuthorFactory
from tests.profiles.claim_people import ORCID, holds, person, with_orcid


@pytest.fixture
def author():
    return AuthorFactory(display_name="Grace Hopper", orcid=ORCID)


@pytest.fixture
def owner(author):
    user = with_orcid(person("owner", email="grace.private@example.net"))
    holds(user, author)
    return user


@pytest.fixture
def follower(author):
    user = person("follower")
    Follow.objects.create(user=user, author=author)
    return user


@pytest.fixture
def stranger():
    return person("stranger")


@pytest.fixture
def staff():
    return person("staff", is_staff=True, is_superuser=True)


@pytest.fixture
def orcid_app(db):
    """ORCID sign-in set up the way an operator does it in the admin."""
    from allauth.socialaccount.models import SocialApp
    from django.contrib.sites.models import Site

    app = SocialApp.objects.create(
        provider="orcid", name="ORCID", client_id="APP-TEST", secret="not-a-real-secret"
    )
    app.sites.add(Site.objects.get_current())
    return app
