"""OAuth 2's routes under /oauth/ (accounts.oauth): the flow's endpoints and the pages where a
player registers and manages apps. The flow's endpoints are rate limited per client address and
per client id (project.throttles.oauth_limited). The namespace is django-oauth-toolkit's own, which its views
and templates name."""

from django.urls import path
from oauth2_provider import views as oauth_views

from accounts import oauth
from project.throttles import oauth_limited

app_name = "oauth2_provider"

urlpatterns = [
    path("authorize/", oauth_limited(oauth.AuthorizationView.as_view()), name="authorize"),
    path("token/", oauth_limited(oauth_views.TokenView.as_view()), name="token"),
    path("revoke_token/", oauth_limited(oauth_views.RevokeTokenView.as_view()), name="revoke-token"),
    path("applications/", oauth.ApplicationList.as_view(), name="list"),
    path("applications/register/", oauth.ApplicationRegistration.as_view(), name="register"),
    path("applications/<id:pk>/", oauth.ApplicationDetail.as_view(), name="detail"),
    path("applications/<id:pk>/delete/", oauth.ApplicationDelete.as_view(), name="delete"),
    path("authorized_tokens/", oauth_views.AuthorizedTokensListView.as_view(), name="authorized-token-list"),
    path("authorized_tokens/<id:pk>/delete/", oauth_views.AuthorizedTokenDeleteView.as_view(),
         name="authorized-token-delete"),
]
