"""OAuth 2 for third-party apps, by django-oauth-toolkit (docs/oauth.md).

An app a player registered (`/oauth/applications/`) or an operator made in the admin sends the
player to `/oauth/authorize/` with a PKCE challenge (S256 only); the player signs in, reads on the
consent page what each scope asked for lets the app do, and approves. The app exchanges the code
at `/oauth/token/` for an access token (`syo_...`) and a refresh token (`syr_...`), and calls the API
with `Authorization: Bearer <access token>`: `accounts.auth` reads it like a personal token, with
the same scopes and the same per-account rate limits. A refresh rotates both tokens; revoking
(`/oauth/revoke_token/`, RFC 7009) deletes the access token. Every deletion of an access token,
whichever path took it (revocation, rotation, the player or the app's owner deleting it, the
admin), is a revocation for `accounts.auth`: forgotten on every process once it commits, and every
stream opened with it ends (`streams.hub`).
"""

from __future__ import annotations

import re
import secrets

from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.urls import reverse_lazy
from oauth2_provider import views as oauth_views
from oauth2_provider.forms import ApplicationForm
from oauth2_provider.models import AbstractApplication, AccessToken, get_application_model
from oauthlib.oauth2 import Server as OAuthlibServer
from oauthlib.oauth2.rfc6749.grant_types.authorization_code import code_challenge_method_s256

from accounts import auth
from project.security import content_security_policy, origin_of

# What each scope lets an app do, in the words the consent page shows the player.
SCOPE_WORDS = {
    "read": "See your games, including your private ones, and follow them live",
    "play": "Make moves, offer draws, resign and create or join games as you",
    "bot": "Play as your bot account, if it is one",
    "webhooks": "Set up webhooks that tell it about your games",
    "account": "Change your account's settings and make personal API tokens",
}
assert tuple(SCOPE_WORDS) == auth.SCOPES  # the same scopes as personal tokens


def access_token(request, refresh_token: bool = False) -> str:
    """An access token's key: `syo_` tells `accounts.auth` to look among OAuth tokens."""
    return auth.OAUTH_PREFIX + secrets.token_urlsafe(32)


def refresh_token(request, refresh_token: bool = False) -> str:
    return "syr_" + secrets.token_urlsafe(32)


class Server(OAuthlibServer):
    """oauthlib's server with S256 as the only PKCE method: a `plain` challenge, or none named
    (which RFC 7636 reads as plain), is refused on the authorization request itself."""

    def __init__(self, request_validator, *args, **kwargs):
        super().__init__(request_validator, *args, **kwargs)
        self.auth_grant._code_challenge_methods = {"S256": code_challenge_method_s256}


@receiver(post_delete, sender=AccessToken)
def _access_token_deleted(sender, instance, **_) -> None:
    """A deleted access token is a revoked one (django-oauth-toolkit revokes by deleting)."""
    if instance.token_checksum:
        auth.revoked(instance.token_checksum)


# --- pages ------------------------------------------------------------------------------------


# An origin as the CSP may name it: a redirect URI's host comes from the request, so anything else
# (a `;` starting another directive) is never written into the header.
PLAIN_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?|https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


class AuthorizationView(oauth_views.AuthorizationView):
    """The consent page, in the site's look (web/templates/oauth2_provider/authorize.html). The
    approving form posts here and is answered with a redirect to the app: the page's CSP names
    the app's origin in `form-action`, since browsers hold a form's redirects to it."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["scope_words"] = [(scope, SCOPE_WORDS.get(scope, scope)) for scope in context.get("scopes", [])]
        return context

    def dispatch(self, request, *args, **kwargs):
        response = super().dispatch(request, *args, **kwargs)
        redirect_uri = request.POST.get("redirect_uri") or request.GET.get("redirect_uri", "")
        origin = origin_of(redirect_uri)
        if response.status_code in (200, 302) and PLAIN_ORIGIN.fullmatch(origin):  # nothing else enters the header
            response["Content-Security-Policy"] = content_security_policy().replace(
                "form-action 'self'", f"form-action 'self' {origin}"
            )
        return response


REGISTRATION_FIELDS = ("name", "client_type", "redirect_uris")


class ApplicationRegistration(oauth_views.ApplicationRegistration):
    """A signed-in player registers an app: its name, public (a browser or phone app, no secret,
    PKCE alone) or confidential (a server that keeps a secret), and its redirect URIs. It always
    uses the authorization code grant. A confidential app's secret is shown once, on the answer
    to this form; the server keeps only its hash."""

    def get_form_class(self):
        from django.forms.models import modelform_factory

        return modelform_factory(get_application_model(), form=ApplicationForm, fields=REGISTRATION_FIELDS)

    def form_valid(self, form):
        form.instance.user = self.request.user
        form.instance.authorization_grant_type = AbstractApplication.GRANT_AUTHORIZATION_CODE
        secret = form.instance.client_secret  # the model's default, before it is hashed on save
        self.object = form.save()
        context = {"application": self.object, "client_secret": secret}
        if self.object.client_type != AbstractApplication.CLIENT_CONFIDENTIAL:
            context["client_secret"] = None
        return self.response_class(
            request=self.request, template="oauth2_provider/application_detail.html", context=context
        )


class ApplicationList(oauth_views.ApplicationList):
    pass


class ApplicationDetail(oauth_views.ApplicationDetail):
    pass


class ApplicationDelete(oauth_views.ApplicationDelete):
    success_url = reverse_lazy("oauth2_provider:list")
