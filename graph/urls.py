from django.urls import path

from graph import views

app_name = "graph"

urlpatterns = [
    path("researchers/<int:pk>/graph/", views.explorer, name="explorer"),
    path("researchers/<int:pk>/graph/slice/", views.graph_slice, name="slice"),
    path("works/<int:pk>/graph/", views.work_explorer, name="work-explorer"),
]
