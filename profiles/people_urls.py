"""Pages of the people layer, mounted at the site root."""

from profiles.claim_urls import urlpatterns as claim_patterns
from profiles.social_urls import urlpatterns as social_patterns

app_name = "people"

urlpatterns = [*claim_patterns, *social_patterns]
