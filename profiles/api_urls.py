from profiles.api_claim_urls import urlpatterns as claim_patterns
from profiles.api_social_urls import urlpatterns as social_patterns

urlpatterns = [*claim_patterns, *social_patterns]
