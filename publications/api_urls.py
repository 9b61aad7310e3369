from rest_framework.routers import DefaultRouter

from publications.api import (
    AuthorViewSet,
    AuthorWorksViewSet,
    InstitutionViewSet,
    TopicViewSet,
    WorkViewSet,
)
from publications.api_imports import ImportRunViewSet

router = DefaultRouter()
router.register("authors", AuthorViewSet, basename="author")
router.register(r"authors/(?P<author_pk>[0-9]+)/works", AuthorWorksViewSet, basename="author-works")
router.register("works", WorkViewSet, basename="work")
router.register("topics", TopicViewSet, basename="topic")
router.register("institutions", InstitutionViewSet, basename="institution")
router.register("imports", ImportRunViewSet, basename="import")

urlpatterns = router.urls
