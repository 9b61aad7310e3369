from rest_framework.routers import DefaultRouter

from publications.api import AuthorViewSet, WorkViewSet

router = DefaultRouter()
router.register("authors", AuthorViewSet, basename="author")
router.register("works", WorkViewSet, basename="work")

urlpatterns = router.urls
