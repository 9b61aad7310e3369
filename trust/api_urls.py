from django.urls import path

from trust.api import AuthorTrustView

urlpatterns = [
    path("authors/<int:pk>/trust/", AuthorTrustView.as_view(), name="author-trust"),
]
