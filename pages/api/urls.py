from rest_framework.routers import APIRootView, DefaultRouter

from config.api import ID_PATTERN, StrictQueryParams
from curation.api import ImportRunViewSet
from pages.api.works import (
    AuthorViewSet,
    AuthorWorksViewSet,
    InstitutionViewSet,
    TopicViewSet,
    WorkViewSet,
)


class StrictAPIRootView(StrictQueryParams, APIRootView):
    """The list of endpoints, refusing an unknown query parameter as they do."""


class Router(DefaultRouter):
    APIRootView = StrictAPIRootView
    # JSON is the one format, asked for with Accept or ?format=; no ".json" twin of each path.
    include_format_suffixes = False


router = Router()
router.register("authors", AuthorViewSet, basename="author")
router.register(
    rf"authors/(?P<author_pk>{ID_PATTERN})/works", AuthorWorksViewSet, basename="author-works"
)
router.register("works", WorkViewSet, basename="work")
router.register("topics", TopicViewSet, basename="topic")
router.register("institutions", InstitutionViewSet, basename="institution")
router.register("imports", ImportRunViewSet, basename="import")

urlpatterns = router.urls
