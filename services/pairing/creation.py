"""The rules an event's settings must meet to be created (CreateTournament), one function each.

Each check takes the command and returns the reason it is refused, or None. :func:`refusal`
runs them in order and gives the first refusal as ``(code, reason)``: ``malformed`` for settings
no game can be played with (Go settings, a grade), ``invalid`` for the rest. Pure: no I/O.
"""
from __future__ import annotations

from collections.abc import Callable

from contracts.messages import CreateTournament
from shared.domain.grades import initial_mms
from shared.domain.knockout import KNOCKOUTS, check_unshared
from shared.domain.tiebreaks import TIEBREAKS
from shared.domain.timecontrol import ClockError, TimeControl
from shared.errors import PairingError
from shared.rules.games import go_settings, position

ROUND_ROBINS = ("round-robin", "double-round-robin", "team-round-robin")
AVAILABLE = ("round-robin", "double-round-robin", "swiss", "chinese-swiss", "mcmahon", "knockout",
             "team-round-robin", "double-elimination")


def go_settings_problem(p: CreateTournament) -> str | None:
    """A Go event's board size, rules, komi, handicap placement and start position must make a
    playable game (:func:`shared.rules.games.go_settings`): each of its games starts from them."""
    if p.game != "go":
        return None
    try:
        position("go", p.start_fen, **go_settings(p.board_size, p.go_rules, p.komi, p.handicap,
                                                  p.stone_removal_s))
    except ValueError as e:
        return f"bad Go settings: {e}"
    return None


def tiebreak_problem(p: CreateTournament) -> str | None:
    """Each tie-break code known (the standings' :data:`TIEBREAKS`) and given once."""
    bad = [t[:20] for t in p.tiebreaks if t not in TIEBREAKS]
    if bad:
        return f"unknown tie-break(s) {bad[:10]}; known: {list(TIEBREAKS)}"
    if len(set(p.tiebreaks)) != len(p.tiebreaks):  # standings would refuse the order later
        twice = sorted({t for t in p.tiebreaks if p.tiebreaks.count(t) > 1})
        return f"tie-break order repeats {twice[:10]}: each code once"
    return None


def system_problem(p: CreateTournament) -> str | None:
    """The pairing system available; a round robin's and a knockout's rounds follow from the
    field (left out)."""
    if p.system not in AVAILABLE:
        return f"pairing system {p.system} is not available yet; available: {', '.join(AVAILABLE)}"
    if p.system in ROUND_ROBINS and p.rounds is not None:
        return "a round robin's rounds follow from the number of players: leave rounds out"
    if p.system in KNOCKOUTS and p.rounds is not None:
        return "a knockout's rounds follow from the field and the play-offs: leave rounds out"
    return None


def knockout_problem(p: CreateTournament) -> str | None:
    """Match length, unshared places (xiangqi 1999 art. 15.6) and play-offs only for a knockout;
    the grand final's reset only for a double elimination."""
    if p.system in KNOCKOUTS:
        try:
            check_unshared(p.unshared_places)
        except PairingError as e:
            return str(e)
    elif p.games_per_match != 1 or p.unshared_places or p.playoff_games is not None:
        return "games_per_match, unshared_places and playoff_games are for knockouts"
    if not p.grand_final_reset and p.system != "double-elimination":
        return "grand_final_reset is for a double-elimination"
    return None


def team_problem(p: CreateTournament) -> str | None:
    """Team formats (xiangqi 1999 art. 12.1-12.5): member-total with an individual round robin
    or Swiss event, the others with a team round robin, which alone takes ``team_boards``."""
    if p.team_format is not None and (p.team_format == "member-total") == (p.system == "team-round-robin"):
        return ("team_format member-total (12.5) goes with an individual event; fixed, reserves, "
                "per-match and all-play-all (12.1-12.4) with a team-round-robin")
    if p.team_format == "member-total" and p.system in KNOCKOUTS:
        return ("member-total (15.5) ranks teams by places of a round robin or Swiss event, not of "
                "a knockout")
    if (p.system == "team-round-robin") != (p.team_boards is not None):
        return "a team-round-robin needs team_boards (boards a match), and only it takes them"
    return None


def mcmahon_problem(p: CreateTournament) -> str | None:
    """A Swiss system's number of rounds given; a McMahon event's bar and floor are grades,
    the floor not above the bar."""
    if p.system in ("swiss", "chinese-swiss", "mcmahon") and not p.rounds:
        return f"a {p.system} tournament needs the number of rounds"
    if p.system != "mcmahon":
        return None
    if not p.mcmahon_bar or not p.mcmahon_floor:
        return "McMahon needs mcmahon_bar and mcmahon_floor grades"
    try:
        initial_mms(p.mcmahon_bar, p.mcmahon_bar, p.mcmahon_floor)
    except PairingError as e:
        return str(e)
    return None


def clock_and_start_problem(p: CreateTournament) -> str | None:
    """A readable time control; a start position legal for the game (Go's: its settings')."""
    try:
        TimeControl.parse(p.time_control)
    except ClockError as e:
        return f"bad time control: {e}"
    if p.start_fen and p.game != "go":
        try:
            position(p.game, p.start_fen)
        except ValueError as e:
            return f"bad start FEN: {e}"
    return None


#: (code, check) in the order they are applied; the codes are TournamentRejectCode's.
CHECKS: tuple[tuple[str, Callable[[CreateTournament], str | None]], ...] = (
    ("malformed", go_settings_problem), ("invalid", tiebreak_problem), ("invalid", system_problem),
    ("invalid", knockout_problem), ("invalid", team_problem), ("invalid", mcmahon_problem),
    ("invalid", clock_and_start_problem),
)


def refusal(p: CreateTournament) -> tuple[str, str] | None:
    """The first refusal of :data:`CHECKS` as ``(code, reason)``, or None: the event may be
    created."""
    for code, check in CHECKS:
        if (reason := check(p)) is not None:
            return code, reason
    return None
