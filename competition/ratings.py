"""The rating systems, as pure functions over numbers: no Django, no clock, no randomness, so a
rebuild from the games' log gives the same numbers to the last bit.

- Two-player games: Glicko-2 (Glickman, "Example of the Glicko-2 system", 2022 revision), written
  here from the paper. The one library on the package index (`glicko2` 2.1.0) computes the
  volatility's f(x) with the rating μ where the paper has the deviation φ; the paper's own
  example, a player at μ = 0, hides the slip. Each game is rated on its own as it ends, as on
  lichess, without the paper's step-6 growth inside the game (`period_growth=False`): the
  deviation grows only with the time elapsed since the player's last game (`PERIOD_DAYS`), both
  in the next game's rating and in what profiles and leaderboards show (`live`).
- Three and four players, free for all: openskill's Plackett-Luce model (Weng and Lin), which
  rates a ranking of any number of players, ties included.

Both keep `rating` and `deviation` on one display scale: Glicko-2's own (1500 for a newcomer,
deviation 350); the multiplayer model's μ = 25, σ = 25/3 are shown ×60, so a newcomer reads
1500 ± 500. The two are separate pools all the same (`competition.models.Rating.system`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from openskill.models import PlackettLuce

GLICKO2, PLACKETT_LUCE = "glicko2", "plackett_luce"

# Glicko-2's constants. τ limits how fast volatility changes; the paper suggests 0.3 to 1.2.
GLICKO_SCALE = 173.7178
TAU = 0.5
NEW_RATING, NEW_DEVIATION, NEW_VOLATILITY = 1500.0, 350.0, 0.06
MAX_DEVIATION = 350.0
PROVISIONAL_DEVIATION = 110.0  # above it, too few recent games to be sure (a rating shown with "?")
LEADERBOARD_DEVIATIONS = 2.0  # a leaderboard ranks by rating - 2 x deviation: 97.7% sure to be above it
CONVERGENCE = 1e-6
# A rating period, for the deviation's growth with absence: lichess's 0.21436 periods a day
# (4.67 days a period). A settled player (deviation 80) turns provisional again after about eight
# months away; one at 50 after about sixteen.
PERIOD_DAYS = 1 / 0.21436

# The multiplayer model, shown on the Glicko scale.
PL_SCALE = 60.0
_plackett_luce = PlackettLuce(limit_sigma=True)
PL_MU, PL_SIGMA = _plackett_luce.mu, _plackett_luce.sigma
PL_DRIFT = _plackett_luce.tau  # σ's growth a period
# Provisional while σ is above 4.5 (270 on the display scale): a newcomer's 25/3 comes down to it
# in about 17 three-player or 22 four-player games against established players, where Glicko-2's
# deviation reaches 110 in 10 to 30 games. (110 / 60 would take hundreds of games.)
PL_PROVISIONAL_SIGMA = 4.5
PL_ORDINAL_SIGMAS = 3.0  # openskill's ordinal, μ - 3σ: a leaderboard's conservative rating


@dataclass(frozen=True)
class Skill:
    """A player's standing in one pool, in its system's own units (Glicko-2: rating, deviation,
    volatility on the 1500 scale; Plackett-Luce: μ, σ and an unused volatility)."""

    system: str
    mu: float
    sigma: float
    volatility: float = NEW_VOLATILITY

    @property
    def rating(self) -> float:
        return self.mu if self.system == GLICKO2 else self.mu * PL_SCALE

    @property
    def deviation(self) -> float:
        return self.sigma if self.system == GLICKO2 else self.sigma * PL_SCALE


def provisional(skill: Skill) -> bool:
    """Too few recent games to be sure: the rating is shown with "?" and kept off leaderboards."""
    if skill.system == GLICKO2:
        return skill.sigma > PROVISIONAL_DEVIATION
    return skill.sigma > PL_PROVISIONAL_SIGMA


def conservative(skill: Skill) -> float:
    """A rating the player is very likely above, on the display scale: Glicko-2's rating minus
    two deviations, openskill's ordinal (μ - 3σ) ×60. A newcomer's one lucky win leaves it low."""
    if skill.system == GLICKO2:
        return skill.mu - LEADERBOARD_DEVIATIONS * skill.sigma
    return (skill.mu - PL_ORDINAL_SIGMAS * skill.sigma) * PL_SCALE


def live(skill: Skill, idle_days: float) -> Skill:
    """The skill as it stands `idle_days` after the player's last game: what is shown."""
    return aged(skill, max(0.0, idle_days) / PERIOD_DAYS)


def system_for(players: int) -> str:
    return GLICKO2 if players == 2 else PLACKETT_LUCE


def newcomer(system: str) -> Skill:
    if system == GLICKO2:
        return Skill(GLICKO2, NEW_RATING, NEW_DEVIATION, NEW_VOLATILITY)
    return Skill(PLACKETT_LUCE, PL_MU, PL_SIGMA)


def aged(skill: Skill, periods: float) -> Skill:
    """The skill after `periods` rating periods without a game: less certain, never beyond a
    newcomer's doubt (Glicko-2's step 6 for each period, the paper's "pre-rating period" value)."""
    if periods <= 0:
        return skill
    if skill.system == GLICKO2:
        phi = skill.sigma / GLICKO_SCALE
        grown = math.sqrt(phi * phi + periods * skill.volatility**2) * GLICKO_SCALE
        return Skill(GLICKO2, skill.mu, min(grown, MAX_DEVIATION), skill.volatility)
    grown = math.sqrt(skill.sigma**2 + periods * PL_DRIFT**2)
    return Skill(PLACKETT_LUCE, skill.mu, min(grown, PL_SIGMA), skill.volatility)


# --- Glicko-2 ---------------------------------------------------------------------------------


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def glicko2_update(player: Skill, games: list[tuple[Skill, float]], tau: float = TAU,
                   period_growth: bool = True) -> Skill:
    """The player's skill after one rating period of `games`: (opponent's skill before the
    period, score 1 win, 0.5 draw, 0 loss). The paper's steps 2 to 8; no games is step 6 only.
    `period_growth=False` leaves out step 6's growth of the deviation by the new volatility: a
    game rated on its own is not a rating period, and the time since the player's last game has
    already grown the deviation (`aged`), as lichess does."""
    if not games:
        return aged(player, 1)
    mu = (player.mu - NEW_RATING) / GLICKO_SCALE
    phi = player.sigma / GLICKO_SCALE
    sigma = player.volatility
    opponents = [((o.mu - NEW_RATING) / GLICKO_SCALE, o.sigma / GLICKO_SCALE, score) for o, score in games]
    # step 3: the estimated variance of the rating from the games alone
    v = 1 / sum(_g(phi_j) ** 2 * _expected(mu, mu_j, phi_j) * (1 - _expected(mu, mu_j, phi_j))
                for mu_j, phi_j, _ in opponents)
    # step 4: the estimated improvement
    improvement = sum(_g(phi_j) * (score - _expected(mu, mu_j, phi_j)) for mu_j, phi_j, score in opponents)
    delta = v * improvement
    new_sigma = _volatility(phi, sigma, v, delta, tau)
    # steps 6 and 7
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma) if period_growth else phi
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    new_mu = mu + new_phi * new_phi * improvement
    # step 8, back to the display scale
    return Skill(GLICKO2, new_mu * GLICKO_SCALE + NEW_RATING, min(new_phi * GLICKO_SCALE, MAX_DEVIATION), new_sigma)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of the paper's f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > CONVERGENCE:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


# --- one finished game ------------------------------------------------------------------------


def ranks_from_scores(scores: list[float]) -> list[int]:
    """Competition ranks, 1 the best: equal scores share a rank ([5, 9, 5] gives [2, 1, 2])."""
    return [1 + sum(1 for other in scores if other > score) for score in scores]


def places(result: dict) -> list[int]:
    """The outcome's ranking, 1 the best, by seat: the one input of every rating, tournament point,
    tally and standing. The winners the rules named share first place; the rest follow, ordered
    among themselves by score (equal scores share a place). A seat that resigned or lost on time
    is never a winner, so it loses however far ahead on the board it was: the rules keep the
    board's scores after a forfeit (Terrafex does), and a ranking read from them alone would hand
    the resigner the win. A result with no `winners` key (none is written so) ranks by score."""
    scores = [float(score) for score in result.get("scores") or []]
    if "winners" not in result or not result["winners"]:
        return ranks_from_scores(scores)
    winners = set(result["winners"])
    rest = [scores[seat] for seat in range(len(scores)) if seat not in winners]
    return [1 if seat in winners else 1 + len(winners) + sum(1 for other in rest if other > scores[seat])
            for seat in range(len(scores))]


def rate_game(skills: list[Skill], ranks: list[int]) -> list[Skill]:
    """Every seat's skill after a game it played with these (already aged) skills, in seat order,
    from the seats' places (`places`: 1 the best, equal places tie)."""
    if len(skills) == 2:
        first, second = skills
        one = 1.0 if ranks[0] < ranks[1] else 0.5 if ranks[0] == ranks[1] else 0.0
        return [glicko2_update(first, [(second, one)], period_growth=False),
                glicko2_update(second, [(first, 1 - one)], period_growth=False)]
    teams = [[_plackett_luce.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = _plackett_luce.rate(teams, ranks=[float(r) for r in ranks])
    return [Skill(PLACKETT_LUCE, team[0].mu, team[0].sigma) for team in rated]
