from rest_framework.routers import SimpleRouter

from profiles.claims.api import ClaimViewSet
from profiles.following.api import FollowViewSet

router = SimpleRouter()
router.register("claims", ClaimViewSet, basename="claim")
router.register("follows", FollowViewSet, basename="follow")

urlpatterns = router.urls
