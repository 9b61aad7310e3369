from django.urls import path

from graph import views

app_name = "graph"

urlpatterns = [
    path("<int:pk>/graph/", views.explorer, name="explorer"),
    path("<int:pk>/graph/slice/", views.graph_slice, name="slice"),
]
