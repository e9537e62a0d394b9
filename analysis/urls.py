from django.urls import path

from analysis import apis
from apikit.routes import with_and_without_slash

_routes = [
    path("games/<id:game_id>/analysis/", apis.GameAnalysisApi.as_view(), name="game-analysis"),
]

urlpatterns = with_and_without_slash(_routes)
