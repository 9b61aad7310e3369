from django.urls import path

from graph.api import AuthorGraphView

urlpatterns = [
    path("authors/<int:pk>/graph/", AuthorGraphView.as_view(), name="author-graph"),
]
