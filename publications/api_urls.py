from rest_framework.routers import DefaultRouter

from publications.api import AuthorViewSet, ImportRunViewSet, WorkViewSet

router = DefaultRouter()
router.register("authors", AuthorViewSet, basename="author")
router.register("works", WorkViewSet, basename="work")
router.register("imports", ImportRunViewSet, basename="import")

urlpatterns = router.urls
