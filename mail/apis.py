"""`/api/mail/`: an account's play-by-email settings, the replies it sent (with what became of
each), and its seats' reply addresses. Every operation needs the `account` scope."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from apikit.schema import operation
from apikit.views import ScopedApi, validated
from mail import services
from mail.models import Cadence


class MailSettings(serializers.Serializer):
    command_address = serializers.CharField(
        help_text="me+<id>-<mac>@…: your own address for commands by mail (the Reply-To of every answer to one); "
                  "keep it to yourself, and replace it (mailAddressesReplace) if it leaked")
    cadence = serializers.ChoiceField(choices=Cadence.values, help_text="immediate: a mail per notice; digest: one a day; none")
    games = serializers.DictField(child=serializers.CharField(), help_text='per game id its own cadence, e.g. {"12": "none"}')
    time_zone = serializers.CharField(help_text="deadlines and the digest hour are written in it, e.g. Europe/Paris")
    digest_hour = serializers.IntegerField(help_text="the local hour the daily digest goes out")
    bounced_at = serializers.DateTimeField(allow_null=True, help_text="when mail to the address bounced (mail is off since)")
    bounce_reason = serializers.CharField()
    mail_on = serializers.BooleanField(help_text="whether mail goes out at all")
    play_forced = serializers.BooleanField(help_text="the server plays your seat's only legal move for you (on by default)")
    address_confirmed = serializers.BooleanField(help_text="whether the link mailed to your address was followed: no other mail goes before")
    sent_when = serializers.CharField(help_text="what is mailed when, in words")


class MailSettingsUpdate(serializers.Serializer):
    cadence = serializers.ChoiceField(choices=Cadence.values, required=False)
    games = serializers.DictField(child=serializers.ChoiceField(choices=[*Cadence.values, "default"]), required=False,
                                  help_text='game id -> cadence, or "default" to follow the account\'s')
    time_zone = serializers.CharField(max_length=64, required=False)
    digest_hour = serializers.IntegerField(min_value=0, max_value=23, required=False)
    mail_on = serializers.BooleanField(required=False, help_text="true after a bounce: the address works again")
    play_forced = serializers.BooleanField(required=False, help_text="whether the server plays your forced moves")


class AddressesReplaced(serializers.Serializer):
    command_address = serializers.CharField(help_text="your new command address")
    seats = serializers.IntegerField(help_text="how many of your seats got a new reply address too")


class InboundInfo(serializers.Serializer):
    id = serializers.IntegerField()
    received_at = serializers.DateTimeField()
    via = serializers.CharField(help_text="smtp, or the provider whose webhook brought it")
    sender = serializers.CharField()
    game = serializers.IntegerField(allow_null=True)
    subject = serializers.CharField()
    command = serializers.CharField(help_text="the line read as the command")
    outcome = serializers.ChoiceField(choices=["received", "done", "refused"])
    code = serializers.CharField(help_text="played, board, help, stale_seq, illegal_move, forged_from, ...")
    detail = serializers.CharField()


class ReplyAddress(serializers.Serializer):
    game = serializers.IntegerField()
    reply_to = serializers.CharField(help_text="play+<token>@…: replies to it play for your seat; keep it to yourself")


class MailScoped(ScopedApi):
    permission_classes = (IsAuthenticated,)
    scopes = {"GET": "account", "PATCH": "account", "POST": "account"}


class MailSettingsApi(MailScoped):
    @operation("mailSettingsGet", summary="Your play-by-email settings", answer=MailSettings, auth="required", scope="account")
    def get(self, request):
        return Response(_settings(request.user))

    @operation("mailSettingsUpdate", summary="Change your play-by-email settings", answer=MailSettings,
               request=MailSettingsUpdate, body=True, auth="required", scope="account", codes=["invalid_input"])
    def patch(self, request):
        services.settings_update(user=request.user, **validated(MailSettingsUpdate, request.data))
        return Response(_settings(request.user))


def _settings(user) -> dict:
    """The account's mail settings and the command address its commands go to."""
    return {**services.settings_of(user=user), "command_address": services.command_address(user.pk)}


class MailInboundApi(MailScoped):
    @operation("mailInboundList", summary="The mails you sent to your reply addresses, newest first, with their outcome",
               answer=InboundInfo(many=True), auth="required", scope="account")
    def get(self, request):
        return Response(services.inbound_list(user=request.user))


class ReplyAddressApi(MailScoped):
    @operation("mailAddressGet", summary="Your seat's reply address in a game", answer=ReplyAddress, auth="required",
               scope="account", codes=["game_not_found", "not_found", "not_a_player"])
    def get(self, request, game_id: int):
        return Response({"game": game_id, "reply_to": services.address_of(user=request.user, game_id=game_id)})

    @operation("mailAddressRotate", summary="Replace your seat's reply address (the old one stops working)",
               answer=ReplyAddress, auth="required", scope="account", codes=["game_not_found", "not_found", "not_a_player"])
    def post(self, request, game_id: int):
        return Response({"game": game_id, "reply_to": services.address_rotate(user=request.user, game_id=game_id)})


class AddressesReplaceApi(MailScoped):
    @operation("mailAddressesReplace",
               summary="Replace your command address and every seat's reply address (when one leaked)",
               answer=AddressesReplaced, auth="required", scope="account")
    def post(self, request):
        """The old addresses are no longer read: mail to one is answered, only to your own address,
        with the address that replaced it. The answer names the new command address; mailAddressGet
        gives each game's new reply address. Your confirmed address is told too, in a short mail."""
        return Response(services.addresses_replace(user=request.user, via=services.BY_THE_API))
