from rest_framework.routers import SimpleRouter

from profiles.claim_api import ClaimViewSet

router = SimpleRouter()
router.register("claims", ClaimViewSet, basename="claim")

urlpatterns = router.urls
