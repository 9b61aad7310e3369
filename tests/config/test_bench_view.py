"""The bare view the page benchmark measures against exists only when asked for."""

from django.test import override_settings


def test_the_site_has_no_bare_view(client, db):
    assert client.get("/bench/bare/").status_code == 404


@override_settings(ROOT_URLCONF="config.bench_urls")
def test_the_benchmark_urls_add_a_bare_view_to_the_site(client, db):
    response = client.get("/bench/bare/")
    assert response.status_code == 200
    assert response.content == b"ok"
    assert client.get("/search/?q=x").status_code == 200
