"""The site's URLs plus a trivial view, for benchmarks only (settings.BENCH_BARE_VIEW).

The bare view passes through every middleware and renders nothing: what a page
costs beyond it is the page's own work.
"""

from django.urls import path

from config import views
from config.urls import handler400, handler404, handler500, urlpatterns

__all__ = ["handler400", "handler404", "handler500", "urlpatterns"]

urlpatterns = [*urlpatterns, path("bench/bare/", views.bare, name="bench-bare")]
