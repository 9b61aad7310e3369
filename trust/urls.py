from django.urls import path

from trust import views

app_name = "trust"

urlpatterns = [
    path("trust/", views.explain, name="explain"),
]
