from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("games.urls")),
]

# Outside the DRF views (an unknown URL, a crash) errors keep the same JSON shape.
handler404 = "games.errors.json_not_found"
handler500 = "games.errors.json_server_error"
