from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

from mail import views as mail_views
from project import ops
from project.schema_view import CachedSchemaView
from project.throttles import password_form_limited

urlpatterns = [
    # The routes of play first: Django tries the patterns in order, on every request.
    path("api/", include("games.urls")),
    path("api/schema/", CachedSchemaView.as_view(), name="schema"),  # built once per process
    # The split view serves Swagger UI's start-up script as a file: the pages' CSP allows no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("api/ready/", ops.ready, name="ready"),  # readiness for load balancers (project.ops)
    path("api/ready", ops.ready),
    path("metrics", ops.metrics_view, name="metrics"),  # Prometheus, with its token only
    path("api/", include("accounts.urls")),
    path("api/", include("chat.urls")),
    path("api/", include("streams.urls")),
    path("api/", include("hooks.urls")),
    path("api/", include("mail.urls")),
    path("api/", include("competition.urls")),
    path("api/", include("analysis.urls")),
    path("mail/unsubscribe/<str:token>/", mail_views.unsubscribe, name="mail-unsubscribe"),
    path("mail/u/<str:token>/", mail_views.unsubscribe, name="mail-unsubscribe-short"),
    path("mail/v/<str:token>/", mail_views.verify, name="mail-verify"),
    path("mail/password/<uidb64>/<token>/", mail_views.password_set, name="mail-password"),
    path("mail/inbound/", include("mail.webhooks")),  # the configured provider's webhooks only
    path("oauth/", include("accounts.oauth_urls")),  # OAuth 2 for third-party apps (accounts.oauth)
    path("admin/login/", password_form_limited(admin.site.login)),  # the API's password limits
    path("admin/", admin.site.urls),
    path("", include("web.urls")),
]

# Outside the DRF views (an unknown URL or Host, an oversized body, a crash, a database outage)
# errors keep the API's JSON shape: project.http.
handler400 = "project.http.bad_request"
handler403 = "project.http.permission_denied"
handler404 = "project.http.not_found"
handler500 = "project.http.server_error"
