"""``arbiter run-tournament``: host a recorded round-robin event through the services.

Everything goes through the gateway's HTTP API, as an organiser and the players would:
create the tournament, register the players (rating order of the record's first appearance),
draw lots, and for each round start it (``berger``: the pairing service's Berger tables with the
draw numbers read from round 1 of the record; ``recorded``: the record's pairing entered as a
manual pairing), then play every game of the round concurrently by submitting its recorded moves
with their times (``[%clk]`` where present, else a fixed think time), and finish the games the
board does not end: resignation by the loser, or a draw offer and acceptance. A record without
moves has its results entered by the arbiter, as for over-the-board games. Finally the
crosstable and standings are read back and compared with the record.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import httpx

from shared.domain.timecontrol import TimeControl
from services.pairing.core import round_robin
from shared.domain.results import CODE_LETTERS, points
from shared.domain.trf import slug
from shared.rules.pgnrecord import RecordedGame, RecordError, RoundRobinRecord, read_event
from shared.errors import TransportError

DEFAULT_THINK_MS = 20_000
DEFAULT_TC = "5400+30"


class HostError(TransportError, RuntimeError):
    """The platform refused something the record needs (with the gateway's reason)."""


@dataclass
class HostReport:
    """Outcome of hosting: the JSON of ``--json`` is :meth:`as_dict`."""

    tournament_id: str
    players: list[dict] = field(default_factory=list)
    games: list[dict] = field(default_factory=list)
    crosstable: dict = field(default_factory=dict)
    standings: dict = field(default_factory=dict)
    pairing_system: str = ""
    pairings_match_record: bool = True
    pairing_mismatches: list[str] = field(default_factory=list)
    results_match_record: bool = True
    scores_match_record: bool = True
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"tournament_id": self.tournament_id, "pairing_system": self.pairing_system,
                "players": self.players, "games": self.games,
                "pairings_match_record": self.pairings_match_record,
                "results_match_record": self.results_match_record,
                "scores_match_record": self.scores_match_record,
                "pairing_mismatches": self.pairing_mismatches, "problems": self.problems,
                "crosstable": self.crosstable}


def berger_numbers(rec: RoundRobinRecord) -> dict[str, int]:
    """Draw numbers read from round 1 of the record: board k of round 1 is board k of the
    Berger table's round 1 (white = first number). The player without a game in round 1 (odd
    number of players) gets the number the table gives the bye."""
    n = len(rec.players)
    plan = round_robin(n)[0]
    numbers: dict[str, int] = {}
    games = rec.rounds[1]
    if len(games) != len(plan.boards):
        raise RecordError(f"round 1 has {len(games)} games; Berger tables for {n} players have "
                          f"{len(plan.boards)}")
    for g, (w, b) in zip(games, plan.boards):
        numbers[g.white], numbers[g.black] = w, b
    rest = [p for p in rec.players if p not in numbers]
    if rest:
        numbers[rest[0]] = plan.bye
    return numbers


class Host:
    """Hosts ``rec`` through the gateway client ``c`` (see :func:`host_record`)."""

    def __init__(self, c: httpx.AsyncClient, rec: RoundRobinRecord, *, pairings: str,
                 tournament_id: str, tiebreaks: tuple[str, ...], progress=None) -> None:
        self.c, self.rec, self.pairings = c, rec, pairings
        self.tid = tournament_id
        self.tiebreaks = tiebreaks
        self.progress = progress or (lambda n=1: None)
        self.ids = {name: slug(name) for name in rec.players}
        if len(set(self.ids.values())) != len(self.ids):  # two names with the same slug
            self.ids = {name: f"p{i + 1}-{slug(name)}"[:60] for i, name in enumerate(rec.players)}
        self.report = HostReport(tournament_id)

    async def call(self, method: str, url: str, **kw) -> dict:
        r = await self.c.request(method, url, **kw)
        if r.status_code >= 400:
            raise HostError(f"{method} {url}: HTTP {r.status_code}: {r.json().get('detail')}")
        return r.json()

    async def run(self) -> HostReport:
        rec = self.rec
        tc = record_time_control(rec)
        parsed = TimeControl.parse(tc)
        self.base_ms = parsed.periods[0].base_ms if parsed else 0
        self.increment_ms = parsed.periods[0].increment_ms if parsed else 0
        system = ("swiss" if rec.kind == "recorded" else
                  "double-round-robin" if rec.cycles == 2 else "round-robin")
        await self.call("POST", "/tournaments", json={
            "tournament_id": self.tid, "name": rec.name, "system": system, "time_control": tc,
            # no tiebreaks given: the event takes its game's default (xiangqi art. 15.1/15.2)
            **({"tiebreaks": list(self.tiebreaks)} if self.tiebreaks else {}), "game": rec.game,
            "rounds": len(rec.rounds) if rec.kind == "recorded" else None,
            # an over-the-board record: 棋例 rulings only when asked (nobody asked in the record)
            "repetition_rulings": "on-request"})
        for name, rating in rec.players.items():
            await self.call("POST", f"/tournaments/{self.tid}/players", json={
                "player_id": self.ids[name], "name": name, "rating": rating})
        if self.pairings == "berger":
            numbers = berger_numbers(rec)
            await self.call("POST", f"/tournaments/{self.tid}/lots",
                            json={"numbers": {self.ids[k]: v for k, v in numbers.items()}})
        for rnd, games in rec.rounds.items():
            await self.play_round(rnd, games)
        await self.finish()
        return self.report

    async def play_round(self, rnd: int, games: list[RecordedGame]) -> None:
        body: dict = {"round": rnd}
        if self.pairings == "recorded":
            body["boards"] = [{"white": self.ids[g.white], "black": self.ids[g.black]} for g in games]
            playing = {self.ids[p] for g in games for p in (g.white, g.black)}
            rest = [self.ids[p] for p in self.rec.players if self.ids[p] not in playing]
            body["bye"] = rest[0] if rest and self.rec.kind == "round-robin" else None
        await self.start_round(body)
        t = await self.wait_round(rnd)
        boards = t["rounds"][rnd - 1]["boards"]
        by_pair = {(b["white"], b["black"]): b["game_id"] for b in boards}
        recorded = {(self.ids[g.white], self.ids[g.black]): g for g in games}
        if set(by_pair) != set(recorded):
            self.report.pairings_match_record = False
            ours = sorted(by_pair)
            theirs = sorted(recorded)
            self.report.pairing_mismatches.append(f"round {rnd}: paired {ours}, record {theirs}")
            raise HostError(f"round {rnd}: the pairing differs from the record "
                            f"(use --pairings recorded): ours {ours}, record {theirs}")
        await asyncio.gather(*(self.play_game(by_pair[k], rnd, g) for k, g in recorded.items()))

    async def start_round(self, body: dict) -> None:
        """Start a round. The pairing service refuses while it has not yet seen every result of
        the previous round (services consume independently), so a refusal with code
        ``round-running`` is retried for a while."""
        for _ in range(200):
            r = await self.c.post(f"/tournaments/{self.tid}/rounds", json=body)
            if r.status_code < 400:
                return
            if r.json().get("code") != "round-running":
                raise HostError(f"round {body['round']}: HTTP {r.status_code}: {r.json().get('detail')}")
            await asyncio.sleep(0.05)
        raise HostError(f"round {body['round']}: the previous round never finished")

    async def wait_round(self, rnd: int) -> dict:
        for _ in range(600):
            t = await self.call("GET", f"/tournaments/{self.tid}")
            if len(t["rounds"]) >= rnd and all(
                    b.get("status") not in (None, "created") for b in t["rounds"][rnd - 1]["boards"]):
                return t
            await asyncio.sleep(0.05)
        raise HostError(f"round {rnd} was not paired in time")

    async def play_game(self, gid: str, rnd: int, g: RecordedGame) -> None:
        game = await self.call("GET", f"/games/{gid}")
        at = (await self._started_ms(gid))
        white, black = self.ids[g.white], self.ids[g.black]
        # a [%clk] reading is the mover's time left after the move, increment included
        # (lichess, chess.com): think = previous reading - this reading + increment
        prev = {"white": self.base_ms, "black": self.base_ms}
        inc = self.increment_ms
        row = {"round": rnd, "game_id": gid, "white": g.white, "black": g.black,
               "recorded_result": g.result, "result": None, "reason": None, "moves": len(g.moves),
               "accepted": 0, "first_rejected": None}
        ended = None
        for ply, uci in enumerate(g.moves, start=1):
            colour = "white" if ply % 2 == 1 else "black"
            clk = g.clocks_ms[ply - 1]
            think = DEFAULT_THINK_MS
            if clk is not None:
                think = max(0, prev[colour] - clk + inc)
                prev[colour] = clk
            at += think
            r = await self.c.post(f"/games/{gid}/moves", json={
                "player_id": white if colour == "white" else black, "move": uci, "at_ms": at})
            if r.status_code == 202 and await self.wait_ply(gid, ply):
                r = httpx.Response(200, json={})  # accepted after the gateway stopped waiting
            if r.status_code != 200:
                row["first_rejected"] = {"ply": ply, "move": g.sans[ply - 1],
                                         "reason": r.json().get("detail")}
                self.report.problems.append(f"{gid}: ply {ply} {g.sans[ply - 1]} rejected: "
                                            f"{r.json().get('detail')}")
                self.report.results_match_record = False  # the record's game was not played out
                break
            row["accepted"] += 1
        state = await self.wait_settled(gid)
        if state["status"] != "ended" and g.result in ("1-0", "0-1", "1/2-1/2"):
            at += 1000
            if not g.moves:
                await self.call("POST", f"/games/{gid}/result",
                                json={"result": g.result, "reason": "recorded result", "at_ms": at})
            elif g.result == "1/2-1/2":
                # the player who just moved offers (chess 1994 art. 10.7, xiangqi 1999 art. 23.1)
                mover = white if len(state["moves"]) % 2 == 1 else black
                other = black if mover == white else white
                await self.call("POST", f"/games/{gid}/draw/offer", json={"player_id": mover, "at_ms": at})
                await self.call("POST", f"/games/{gid}/draw/accept", json={"player_id": other, "at_ms": at + 1})
            else:
                loser = black if g.result == "1-0" else white
                await self.call("POST", f"/games/{gid}/resign", json={"player_id": loser, "at_ms": at})
            state = await self.wait_settled(gid, ended=True)
        row.update(result=state["result"], reason=state["reason"],
                   rule=(state.get("rule") or {}).get("article"))
        if row["result"] != g.result:
            self.report.results_match_record = False
            self.report.problems.append(f"{gid}: result {row['result']} ({row['reason']}), record {g.result}")
        self.report.games.append(row)
        self.progress(1)

    async def wait_ply(self, gid: str, ply: int, timeout: float = 120.0) -> bool:
        """After a 202 (the services were slow, e.g. during a rebalance): wait for the move to be
        ruled on. True when ply ``ply`` was accepted."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            g = await self.call("GET", f"/games/{gid}")
            if len(g["moves"]) >= ply:
                return True
            last = g.get("last_rejection")
            if last:
                return False
            await asyncio.sleep(0.1)
        return False

    async def _started_ms(self, gid: str) -> int:
        events = await self.call("GET", f"/games/{gid}/events", params={"follow": "false"})
        for e in events:
            if e["type"] == "GameStarted":
                from datetime import datetime
                return int(datetime.fromisoformat(e["occurred_at"].replace("Z", "+00:00")).timestamp() * 1000)
        raise HostError(f"game {gid} has not started")

    async def wait_settled(self, gid: str, ended: bool = False) -> dict:
        """The game view once the services have caught up with the last command."""
        last = None
        for _ in range(400):
            state = await self.call("GET", f"/games/{gid}")
            if state["status"] == "ended" and state["result"]:
                return state
            if not ended and last is not None and state == last:
                return state
            last = state
            await asyncio.sleep(0.03)
        return state

    def expected(self) -> tuple[int, dict[str, float]]:
        """The record's number of rounds and each player's score by player id."""
        return len(self.rec.rounds), {self.ids[n]: s for n, s in record_scores(self.rec).items()}

    async def finish(self) -> None:
        """Read the standings after the last round back and compare the scores with
        :meth:`expected` (problems named in the report)."""
        rounds, expected = self.expected()
        for _ in range(400):
            st = await self.call("GET", f"/tournaments/{self.tid}/standings")
            if st["round"] == rounds:
                break
            await asyncio.sleep(0.05)
        self.report.standings = st
        self.report.crosstable = await self.call("GET", f"/tournaments/{self.tid}/crosstable")
        for r in st["rows"]:
            self.report.players.append({"name": r["name"], "id": r["player_id"], "score": r["score"],
                                        "rank": r["rank"], "tiebreaks": r["tiebreaks"]})
            if abs(expected.get(r["player_id"], -1) - r["score"]) > 1e-9:
                self.report.scores_match_record = False
                self.report.problems.append(f"{r['name']}: score {r['score']}, record "
                                            f"{expected.get(r['player_id'])}")
        if len(st["rows"]) != len(expected):
            self.report.scores_match_record = False
        self.report.games.sort(key=lambda x: (x["round"], x["game_id"]))


def record_time_control(rec: RoundRobinRecord) -> str:
    """The time control to host a record with (PGN TimeControl, seconds): the record's tag when
    its games carry ``[%clk]`` and the tag parses; with clocks but no usable tag, an estimate
    from the readings (base: the largest first reading rounded up to the minute; increment: the
    largest rise of a player's clock between two of his moves, at most 60 s); without clocks,
    :data:`DEFAULT_TC` (xiangqi: the 1999 rules' art. 6.1 control) with a fixed think time per
    move."""
    games = [g for gs in rec.rounds.values() for g in gs]
    if not any(c is not None for g in games for c in g.clocks_ms):
        return "xiangqi-6.1" if rec.game == "xiangqi" else DEFAULT_TC
    if rec.time_control:
        try:
            if TimeControl.parse(rec.time_control) is not None:
                return rec.time_control
        except ValueError:
            pass
    first = max((c for g in games for c in g.clocks_ms[:2] if c is not None), default=60_000)
    rise = 0
    for g in games:
        for k in range(2, len(g.clocks_ms)):
            a, b = g.clocks_ms[k - 2], g.clocks_ms[k]
            if a is not None and b is not None:
                rise = max(rise, b - a)
    base_s = -(-first // 60_000) * 60
    return f"{base_s}+{min(60, -(-rise // 1000))}" if rise > 0 else str(base_s)


def record_scores(rec: RoundRobinRecord) -> dict[str, float]:
    """Each player's score in the record (1, ½, 0; :func:`shared.domain.results.points`; an
    unfinished game ``*`` 0)."""
    out = {p: 0.0 for p in rec.players}
    for games in rec.rounds.values():
        for g in games:
            w, b = points(g.result) if g.result in CODE_LETTERS else (0.0, 0.0)
            out[g.white] += w
            out[g.black] += b
    return out


async def host_record(c: httpx.AsyncClient, path: str, *, pairings: str = "auto",
                      tournament_id: str | None = None,
                      tiebreaks: tuple[str, ...] = (), progress=None) -> HostReport:
    """Host the event recorded in ``path`` through gateway client ``c``: a complete round robin
    in PGN, or a xiangqi record (any event; hosted round by round with the recorded pairings,
    see :func:`shared.rules.pgnrecord.read_event`).

    ``tiebreaks``: FIDE codes in order; empty (default) = the game's own order, which the
    tournament takes when created without one (xiangqi art. 15.1/15.2 with FOULS, chess and
    Go SB, WIN, DE).
    ``pairings``: ``berger``, ``recorded`` or ``auto`` (Berger when the record's rounds are the
    Berger tables with round 1's draw numbers, else recorded). Raises :class:`RecordError` for
    a file that is not a complete round robin, :class:`HostError` when the platform refuses
    something the record needs.
    """
    rec = read_event(path)
    if rec.kind == "recorded":
        pairings = "recorded"
    elif pairings == "auto":
        pairings = "berger" if berger_reproduces(rec) else "recorded"
    tid = tournament_id or _event_id(rec.name)
    host = Host(c, rec, pairings=pairings, tournament_id=tid, tiebreaks=tiebreaks, progress=progress)
    report = await host.run()
    if pairings == "recorded":
        report.pairings_match_record = True  # entered as recorded
    report.pairing_system = pairings
    return report


def _event_id(name: str) -> str:
    """A tournament id from an event name: its slug, cut to 40 characters with a hash of the whole
    name so that two long names that share a beginning do not collide."""
    s = slug(name).lower() or "event"
    if len(s) <= 40:
        return s
    import hashlib
    return f"{s[:33]}-{hashlib.sha256(name.encode()).hexdigest()[:6]}"


def berger_reproduces(rec: RoundRobinRecord) -> bool:
    """Whether Berger tables with round 1's draw numbers give every round of the record
    (pairs and colours; the second cycle of a double round robin with colours swapped)."""
    try:
        numbers = berger_numbers(rec)
    except RecordError:
        return False
    by_no = {v: k for k, v in numbers.items()}
    plan = round_robin(len(rec.players), rec.cycles)
    if len(plan) != len(rec.rounds):
        return False
    for p, (rnd, games) in zip(plan, rec.rounds.items()):
        ours = {(by_no[w], by_no[b]) for w, b in p.boards}
        if ours != {(g.white, g.black) for g in games}:
            return False
    return True
