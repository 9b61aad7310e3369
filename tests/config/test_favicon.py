"""The site's icon: at /favicon.ico for browsers that ask there, and named by the admin."""

import pytest
from django.templatetags.static import static

from tests.people import person

pytestmark = pytest.mark.django_db


def test_favicon_ico_leads_to_the_site_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == static("img/favicon.svg")
    assert "max-age" in response["Cache-Control"]


@pytest.mark.parametrize(("url", "staff"), [("/admin/login/", False), ("/admin/", True)])
def test_admin_pages_name_the_site_icon(client, url, staff):
    if staff:
        client.force_login(person("keeper", is_staff=True, is_superuser=True))
    html = client.get(url).content.decode()
    assert f'<link rel="icon" href="{static("img/favicon.svg")}" type="image/svg+xml">' in html
    assert "administration" in html  # still Django's admin page, with the site's header
