from django.urls import path

from graph import views

app_name = "graph"

# The explorers answer under the short <id>/ the site links to and under the
# <id>-<slug>/ of the researcher's or the work's own page; a wrong slug redirects.
urlpatterns = [
    path("researchers/<int:pk>/graph/", views.explorer, name="explorer"),
    path("researchers/<int:pk>-<slug:slug>/graph/", views.explorer, name="explorer-slugged"),
    path("researchers/<int:pk>/graph/slice/", views.graph_slice, name="slice"),
    path("works/<int:pk>/graph/", views.work_explorer, name="work-explorer"),
    path("works/<int:pk>-<slug:slug>/graph/", views.work_explorer, name="work-explorer-slugged"),
]
