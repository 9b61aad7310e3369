from rest_framework.routers import SimpleRouter

from profiles.claim_api import ClaimViewSet
from profiles.social_api import FollowViewSet

router = SimpleRouter()
router.register("claims", ClaimViewSet, basename="claim")
router.register("follows", FollowViewSet, basename="follow")

urlpatterns = router.urls
