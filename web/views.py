"""The web client's pages. Each is a server-rendered shell, readable without JavaScript where it
matters (a game's text board and log), that small ES modules (`static/web/`) bring to life
through the same public API and streams every other client uses."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django.views.i18n import set_language

from accounts import services as account_services
from apikit import errors as apikit_errors
from competition import selectors as competition_selectors
from games import errors, selectors, text_board, words
from project import http
from web import table


def lobby(request):
    return render(request, "web/lobby.html")


@require_http_methods(["GET", "POST"])
def signup(request):
    problem, username, email = "", "", ""
    if request.method == "POST":
        username = request.POST.get("username", "").strip()
        email = request.POST.get("email", "").strip()
        try:
            user, _ = account_services.account_create(username=username, password=request.POST.get("password", ""), email=email)
        except apikit_errors.ServiceError as error:
            problem = words.translated(error.detail)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("web:lobby")
    return render(request, "web/signup.html", {"problem": problem, "username": username, "email": email}, status=400 if problem else 200)


@login_required
def account(request):
    from mail import services as mail_services  # the account's own address for commands by mail

    return render(request, "web/account.html", {"command_address": mail_services.command_address(request.user.pk)})


@login_required
@require_http_methods(["GET", "POST"])
def mail_addresses(request):
    """Replace the account's mail addresses when one leaked: a GET asks to confirm (what it does,
    and a button), the POST does it, and the page it leads to shows the new command address."""
    from mail import services as mail_services

    if request.method == "POST":  # then a GET, so that reloading the page replaces nothing again
        result = mail_services.addresses_replace(user=request.user, via=mail_services.ON_THE_WEB)
        return redirect(f"{request.path}?replaced={result['seats']}")
    replaced = request.GET.get("replaced", "")
    done = {"seats": int(replaced)} if replaced.isdigit() else None
    return render(request, "web/mail_addresses.html",
                  {"done": done, "command_address": mail_services.command_address(request.user.pk)})


@login_required
def new_game(request):
    return render(request, "web/new_game.html")


def game(request, game_id: int):
    try:
        found = selectors.game_for(game_id=game_id, user=request.user, invitation=request.GET.get("invitation", ""))
    except errors.GameNotFound:
        raise Http404(f"there is no game {game_id}") from None
    except errors.InvalidInvitation:
        return http.error_page(request, 400, _("That invitation link is broken: ask for it again."))
    detail = selectors.game_detail(game=found, user=request.user)
    descriptor = selectors.rules_detail(rules_id=detail["rules"])
    # The log as far as the game that was read: an event written since (a seat taken while the page
    # loads) would name a seat the page's players do not have yet. The page asks for newer ones itself.
    events = selectors.events_visible(game=found, user=request.user, upto=found.seq, notation=True)
    return render(
        request,
        "web/game.html",
        {
            "game": detail,
            "your_seat": detail["your_seat"],
            # "What if" only where the rules can accept a line at all, and only with two seats.
            "conditional_moves": descriptor.get("conditional_moves", False) and detail["players"] == 2,
            "title": table.title_of(detail["rules"]),
            "seats": table.seats(detail),
            "status_line": table.status_line(detail),
            "board": text_board.board_and_panels(game=found, user=request.user),
            "events": table.log_lines(events),
            "last_hash": events[-1]["hash"] if events else "",
            "how_to_play": table.how_to_play(detail["rules"]),
            # A tournament's table links back to its pairings and standings.
            "tournament": competition_selectors.tournament_of_game(game_id=found.pk),
            # With a handoff the web server passes streams on itself: the page asks its own origin.
            "stream_url": "" if settings.SCRAPYARD_STREAM_HANDOFF else settings.SCRAPYARD_STREAM_URL.rstrip("/"),
        },
    )


def leaderboards(request):
    """Every pool the server can rate in (each game, time class and system its player counts
    allow), those with rated players first, so the choice is never empty."""
    return render(request, "web/leaderboards.html", {"pools": competition_selectors.pools_offered()})


def player(request, username: str):
    return render(request, "web/player.html", {"username": username})


def tournaments(request):
    return render(request, "web/tournaments.html")


@login_required
def new_tournament(request):
    return render(request, "web/tournament_new.html", {"games": selectors.rules_catalogue()})


def tournament(request, tournament_id: int):
    return render(request, "web/tournament.html", {"tournament_id": tournament_id})


@require_http_methods(["POST"])
def language(request):
    """The switcher on every page: Django's set_language (a cookie, then back where the reader
    was), and a signed-in account's own setting too, so its mail follows."""
    chosen = request.POST.get("language", "")
    if request.user.is_authenticated and chosen in dict(settings.LANGUAGES):
        account_services.account_update(user=request.user, language=chosen)
    return set_language(request)
