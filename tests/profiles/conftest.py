"""Fixtures of the collaboration tests: an open recipient, a sender, an invitation."""

import pytest

from profiles.collaboration import services as collab
from profiles.models import Profile
from tests.profiles.invitations import MESSAGE, TOPIC
from tests.profiles.social_people import ORCIDS, researcher


@pytest.fixture
def recipient(owner):
    """The owner of the Grace Hopper record, open to collaborate."""
    Profile.objects.filter(user=owner).update(open_to_collaborate=True)
    owner.refresh_from_db()
    return owner


@pytest.fixture
def sender(db):
    """Another researcher, holding their own record."""
    return researcher("ada", "Ada Lovelace", orcid=ORCIDS[0])


@pytest.fixture
def invitation(sender, recipient):
    return collab.invitation_create(
        sender=sender, profile=recipient.profile, topic=TOPIC, message=MESSAGE
    )


@pytest.fixture
def conversation(invitation, recipient):
    return collab.invitation_accept(invitation=invitation, user=recipient, reply="Gladly!")
