from django.urls import path

from apikit.routes import with_and_without_slash
from mail import apis

_routes = [
    path("mail/settings/", apis.MailSettingsApi.as_view(), name="mail-settings"),
    path("mail/settings/addresses/", apis.AddressesReplaceApi.as_view(), name="mail-addresses-replace"),
    path("mail/inbound/", apis.MailInboundApi.as_view(), name="mail-inbound"),
    path("mail/addresses/<id:game_id>/", apis.ReplyAddressApi.as_view(), name="mail-address"),
]

urlpatterns = with_and_without_slash(_routes)
