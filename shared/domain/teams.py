"""Team events of the xiangqi competition rules 1999, art. 12-14 (pure).

* 12.1 分台定人制: fixed boards, ordered by rating (higher first; unrated after rated players).
* 12.2 分台换人制: reserves allowed; each match fields any ``boards`` members of the roster, in
  roster order (4 boards from 6 players: 15 possible line-ups, e.g. 1-2-3-4 ... 3-4-5-6).
* 12.3 临时定台制: the line-up is set per match (any order of any members).
* 12.4 全队轮赛制: every member of one team plays every member of the other.
* 12.5 队员总分制: no boards; the team's result is the sum of its members' individual scores.
* 13.2 / 13.3: the team listed first (先走) has Red (white seat) on odd boards, Black on even ones.
* 14.2: a match is won by more game points (局分): match points (场分) 2 / 1 / 0.
* 15.3: a team round robin ranks by match points, then total game points (全队总局分, ``GP``),
  games won (全队胜局, ``WIN``), direct encounter (直胜, ``DE``), team fouls (全队犯规, ``FOULS``,
  fewer first); teams still level share the place.
* 15.4: a team 积分编排制 (Swiss) event ranks by match points, then the opponents' match points
  (团体对手分, ``BH``: the sum of the match points of the teams met), total game points
  (``GP``), matches won (全队胜场, ``MW``: matches, not games), team fouls; level teams share.
* 15.5: a 队员总分制 event (12.5) ranks teams by the sum of their members' places in the
  individual event (fewer first), then the best member's place, the second best's, team fouls.

Errors: :class:`PairingError` for an illegal line-up or bad input.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from itertools import combinations

from contracts.messages import PlayerRegistered, TournamentCreated

from shared.errors import PairingError

__all__ = ["Member", "board_order", "lineups", "check_lineup", "match_boards", "all_play_all",
           "match_points", "member_total", "TeamRow", "team_standings", "TEAM_ROUND_ROBIN", "TEAM_SWISS",
           "member_places"]


@dataclass(frozen=True)
class Member:
    """A team member: ``id`` and ``rating`` (None: unrated)."""

    id: str
    rating: int | None = None


def board_order(members: list[Member]) -> list[str]:
    """Art. 12.1: board order by rating, higher first, unrated members after the rated ones (in
    the order given)."""
    rated = sorted((m for m in members if m.rating is not None), key=lambda m: -m.rating)
    return [m.id for m in rated] + [m.id for m in members if m.rating is None]


def lineups(roster: list[str], boards: int) -> list[tuple[str, ...]]:
    """Art. 12.2: every line-up of ``boards`` members keeping the roster's order."""
    if not 1 <= boards <= len(roster):
        raise PairingError(f"{boards} boards from a roster of {len(roster)}")
    return list(combinations(roster, boards))


def check_lineup(roster: list[str], lineup: list[str], boards: int, system: str) -> None:
    """Refuse a line-up against its system: ``fixed`` (12.1: the first ``boards`` members in
    order), ``reserves`` (12.2: roster order kept) or ``per-match`` (12.3: any members).
    Raises :class:`PairingError` saying what is wrong."""
    if len(lineup) != boards or len(set(lineup)) != boards:
        raise PairingError(f"a line-up names {boards} different members, got {lineup}")
    unknown = [m for m in lineup if m not in roster]
    if unknown:
        raise PairingError(f"not on the roster: {unknown}")
    if system == "fixed" and list(lineup) != roster[:boards]:
        raise PairingError(f"fixed boards (art. 12.1): the line-up must be {roster[:boards]}")
    if system == "reserves":
        pos = [roster.index(m) for m in lineup]
        if pos != sorted(pos):
            raise PairingError("with reserves (art. 12.2) the board order must keep the roster order")
    elif system not in ("fixed", "per-match"):
        raise PairingError(f"unknown team system {system!r}")


def match_boards(first: list[str], second: list[str]) -> list[tuple[str, str]]:
    """(red/white, black) per board of a match: the first-listed team has Red on odd boards and
    Black on even boards (art. 13.2, 13.3)."""
    if len(first) != len(second):
        raise PairingError("both teams field the same number of boards")
    _disjoint(first, second)
    return [(a, b) if i % 2 == 0 else (b, a) for i, (a, b) in enumerate(zip(first, second))]


def all_play_all(first: list[str], second: list[str]) -> list[list[tuple[str, str]]]:
    """Art. 12.4: rounds in which every member of ``first`` meets every member of ``second``
    (Scheveningen rotation: round r, board i pairs first[i] with second[(i + r) % n]). Colours
    alternate by board within a round (13.2) and swap halfway, so with an even team size every
    player has Red in half of the rounds."""
    n = len(first)
    if n != len(second) or n == 0:
        raise PairingError("all-play-all needs teams of the same size")
    _disjoint(first, second)
    return [[(first[i], second[(i + r) % n]) if (i % 2 == 0) != (2 * r >= n)
             else (second[(i + r) % n], first[i]) for i in range(n)] for r in range(n)]


def match_points(game_points_first: float, game_points_second: float) -> tuple[int, int]:
    """Art. 14.2: more game points wins the match: 2 : 0; equal: 1 : 1."""
    if game_points_first == game_points_second:
        return 1, 1
    return (2, 0) if game_points_first > game_points_second else (0, 2)


def member_total(scores: dict[str, float], team: list[str]) -> float:
    """Art. 12.5: a team's result in a 队员总分制 event, the sum of its members' scores."""
    if len(set(team)) != len(team):
        raise PairingError("a member is listed twice")
    return sum(scores.get(m, 0.0) for m in team)


def _disjoint(first: list[str], second: list[str]) -> None:
    if len(set(first)) != len(first) or len(set(second)) != len(second):
        raise PairingError("a member is listed twice in one team")
    both = set(first) & set(second)
    if both:
        raise PairingError(f"members in both teams: {sorted(both)}")


#: Art. 15.3 tie-break order of a team round robin, after match points.
TEAM_ROUND_ROBIN = ("GP", "WIN", "DE", "FOULS")
#: Art. 15.4 tie-break order of a team Swiss (积分编排制) event, after match points.
TEAM_SWISS = ("BH", "GP", "MW", "FOULS")


@dataclass(frozen=True)
class TeamRow:
    """A team's standing: ``match_points`` (场分, 14.2), ``game_points`` (局分: 1 / ½ / 0 a game,
    forfeits as wins / losses), ``matches`` played, ``tiebreaks`` {GP, WIN, DE, FOULS}."""

    rank: int
    team: str
    match_points: float
    game_points: float
    matches: int
    tiebreaks: dict


def team_standings(rosters: dict[str, list[str]],
                   matches: list[tuple[str, str, list[tuple[str, str, str]]]],
                   fouls: dict[str, int] | None = None, system: str = "round-robin") -> list[TeamRow]:
    """Rank teams by art. 15.3 (``system`` ``round-robin``: :data:`TEAM_ROUND_ROBIN`) or 15.4
    (``swiss``: :data:`TEAM_SWISS`). ``rosters``: team -> member ids; ``matches``: (team, team,
    games (white, black, result code ``1-0 0-1 1/2-1/2 +- -+ --``)) of the finished matches;
    ``fouls``: per member (犯规). DE: match points in the matches among the teams still level,
    only when each pair of them has met (else 0 for all of them). BH: the sum of the match
    points (so far) of every team met. Every code is in ``tiebreaks``; only the system's are
    used to rank. Raises :class:`PairingError` for a game whose players are not the two teams'
    members, an unknown result or an unknown system."""
    if system not in ("round-robin", "swiss"):
        raise PairingError(f"unknown team standings system {system!r}: round-robin or swiss")
    s = _tally_matches(rosters, matches)
    mp, gp, wins, won = s.match_points, s.game_points, s.game_wins, s.match_wins
    team_fouls = {t: sum((fouls or {}).get(m, 0) for m in ms) for t, ms in rosters.items()}
    bh = {t: sum(mp[o] for o in s.opponents[t]) for t in rosters}
    if system == "swiss":
        full = {t: (-mp[t], -bh[t], -gp[t], -won[t], team_fouls[t]) for t in rosters}
        return _ranked(rosters, full, lambda t: TeamRow(
            rank=0, team=t, match_points=mp[t], game_points=gp[t], matches=s.played[t],
            tiebreaks={"BH": bh[t], "GP": gp[t], "MW": float(won[t]), "WIN": float(wins[t]),
                       "FOULS": float(team_fouls[t])}))
    key = {t: (-mp[t], -gp[t], -wins[t]) for t in rosters}
    de = _direct_encounter(key, s.met)
    full = {t: key[t] + (-de[t], team_fouls[t]) for t in rosters}
    return _ranked(rosters, full, lambda t: TeamRow(
        rank=0, team=t, match_points=mp[t], game_points=gp[t], matches=s.played[t],
        tiebreaks={"GP": gp[t], "WIN": float(wins[t]), "DE": de[t], "FOULS": float(team_fouls[t]),
                   "BH": bh[t], "MW": float(won[t])}))


@dataclass
class _MatchTally:
    """Per team: match points, game points, games won, matches played, matches won, the teams
    met (in order); ``met``: the pair -> each team's match points in their match."""

    match_points: dict[str, float]
    game_points: dict[str, float]
    game_wins: dict[str, int]
    played: dict[str, int]
    match_wins: dict[str, int]
    opponents: dict[str, list[str]]
    met: dict[frozenset, dict[str, float]]


def _tally_matches(rosters: dict[str, list[str]],
                   matches: list[tuple[str, str, list[tuple[str, str, str]]]]) -> _MatchTally:
    """The finished matches added up (match points by :func:`match_points`, art. 15.3). Raises
    PairingError for a game whose players are not the two teams' members or an unknown result."""
    from shared.domain.knockout import game_points
    team_of = {m: team for team, ms in rosters.items() for m in ms}
    s = _MatchTally({t: 0.0 for t in rosters}, {t: 0.0 for t in rosters}, {t: 0 for t in rosters},
                    {t: 0 for t in rosters}, {t: 0 for t in rosters}, {t: [] for t in rosters}, {})
    for a, b, games in matches:
        pts = {a: 0.0, b: 0.0}
        for white, black, res in games:
            wb = game_points(res)
            if {team_of.get(white), team_of.get(black)} != {a, b}:
                raise PairingError(f"game {white}-{black} is not of the match {a}-{b}")
            for pid, p in zip((white, black), wb):
                pts[team_of[pid]] += p
                s.game_wins[team_of[pid]] += p == 1
        ma, mb = match_points(pts[a], pts[b])
        for t, o, m in ((a, b, ma), (b, a, mb)):
            s.match_points[t] += m
            s.game_points[t] += pts[t]
            s.played[t] += 1
            s.match_wins[t] += m == 2
            s.opponents[t].append(o)
        s.met[frozenset((a, b))] = {a: ma, b: mb}
    return s


def _direct_encounter(key: dict[str, tuple], met: dict[frozenset, dict[str, float]]) -> dict[str, float]:
    """DE (art. 15.3): among the teams level on ``key``, the match points of their matches with
    each other, counted only when every pair of them has met (else 0 for all of them)."""
    de = {t: 0.0 for t in key}
    groups: dict[tuple, list[str]] = {}
    for t in key:
        groups.setdefault(key[t], []).append(t)
    for group in groups.values():
        pairs = [frozenset((x, y)) for i, x in enumerate(group) for y in group[i + 1:]]
        if len(group) > 1 and all(p in met for p in pairs):
            for p in pairs:
                for t, v in met[p].items():
                    de[t] += v
    return de


def _ranked(teams, key: dict, row) -> list[TeamRow]:
    """Rows in ``key`` order (smaller first); equal keys share the rank (名次并列)."""
    from dataclasses import replace
    order = sorted(teams, key=lambda t: key[t])
    rows: list[TeamRow] = []
    for i, t in enumerate(order):
        rank = rows[-1].rank if rows and key[order[i - 1]] == key[t] else i + 1
        rows.append(replace(row(t), rank=rank))
    return rows


def member_places(rosters: dict[str, list[str]], places: dict[str, int],
                  scores: dict[str, float] | None = None,
                  fouls: dict[str, int] | None = None) -> list[TeamRow]:
    """Art. 12.5 / 15.5 (队员总分制): rank teams by the sum of their members' places in the
    individual event (``places``: player -> rank, 1 best), fewer first; then the best member's
    place (最高个人名次), the second best's, team fouls (fewer first); teams still level share.
    Teams should field the same number of members (the rule compares sums). ``game_points``
    of a row is the members' total score (12.5, :func:`member_total` of ``scores``),
    ``match_points`` 0 (no matches); ``tiebreaks``: PLACES (the sum), BEST, SECOND, FOULS.
    Raises :class:`PairingError` for a member without a place."""
    key, info = {}, {}
    for t, ms in rosters.items():
        missing = [m for m in ms if m not in places]
        if missing:
            raise PairingError(f"team {t}: no individual place for {missing}")
        ps = sorted(places[m] for m in ms)
        best, second = ps[0], (ps[1] if len(ps) > 1 else 0)
        f = sum((fouls or {}).get(m, 0) for m in ms)
        key[t] = (sum(ps), best, second, f)
        info[t] = {"PLACES": float(sum(ps)), "BEST": float(best), "SECOND": float(second), "FOULS": float(f)}
    return _ranked(rosters, key, lambda t: TeamRow(
        rank=0, team=t, match_points=0.0, game_points=member_total(scores or {}, rosters[t]),
        matches=0, tiebreaks=info[t]))


def team_match_rounds(created: TournamentCreated) -> int:
    """Rounds of play a team match takes: ``team_boards`` for all-play-all (12.4), else 1."""
    return created.team_boards if created.team_format == "all-play-all" else 1


def team_key(name: str) -> str:
    """The identity of a team name: Unicode NFKC-normalised (full-width ``"Ｄ"`` is ``"D"``,
    a no-break space a space), spaces trimmed and runs of spaces made one, case folded
    (``" A "``, ``"a"``, ``"Ａ"`` and ``"A"`` are one team)."""
    return " ".join(unicodedata.normalize("NFKC", name).split()).casefold()


def canonical_team(name: str, known: list[str | None]) -> str:
    """A team name as registered: trimmed (runs of spaces made one); ``known``: the team names
    registered so far. Raises ``PairingError`` naming the existing team when ``name`` differs
    from one only by case, spaces or character width (:func:`team_key`: a second, one-member
    team nobody meant), or when nothing
    is left after trimming."""
    clean = " ".join(name.split())
    if not clean:
        raise PairingError("a team name needs a visible character")
    for k in known:
        if k is not None and k != clean and team_key(k) == team_key(clean):
            raise PairingError(f"team {name!r} differs from the registered team {k!r} only by "
                                  f"case, spaces or character width: register the player in {k!r}")
    return clean


def team_rosters(players: list[PlayerRegistered]) -> dict[str, list[str]]:
    """Team -> member ids in board order, teams in order of registration: by the ``board``
    numbers given, else by rating (art. 12.1: higher first, unrated after rated, as registered);
    members with a board number come before those without."""
    teams: dict[str, list[PlayerRegistered]] = {}
    for x in players:
        if x.team:
            teams.setdefault(x.team, []).append(x)
    out = {}
    for name, xs in teams.items():
        numbered = sorted((x for x in xs if x.board is not None), key=lambda x: x.board)
        rest = board_order([Member(x.player_id, x.rating) for x in xs if x.board is None])
        out[name] = [x.player_id for x in numbered] + rest
    return out
