from rest_framework.routers import SimpleRouter

from profiles.social_api import FollowViewSet

router = SimpleRouter()
router.register("follows", FollowViewSet, basename="follow")

urlpatterns = router.urls
