"""The ``arbiter`` command (typer + rich).

demo, up, serve, run-tournament, replay, perft, adjudicate, score, export-log, audit, config,
token issue, token revoke, schemas. Every subcommand reports bad
input as one clear line on stderr and exit code 2 (usage) or 1 (a check failed), never a
traceback.
"""
from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Arbiter: event-sourced tournaments for chess, xiangqi and Go (demo, up, run-tournament, replay, audit).")
out = Console()
err = Console(stderr=True)

BUS_HELP = "event log: 'memory' (one process) or kafka://HOST:PORT"


def _fail(msg: str, code: int = 2) -> None:
    # escaped: SGF's RE[...] is no rich markup; soft_wrap: one line however narrow the
    # terminal (or 80 columns when stderr is not one), for a script or a log to read
    err.print(f"[red]arbiter: {escape(msg)}[/red]", soft_wrap=True)
    raise typer.Exit(code)


def _run(coro):
    """Run ``coro``; an unreachable or failing broker is one clear line and exit 1 (aiokafka's
    errors, and confluent-kafka's, which the audit's decided offsets are read with)."""
    from aiokafka.errors import KafkaError
    from confluent_kafka import KafkaException
    # aiokafka logs each failed connection itself (through logging's last resort: a line
    # before ours); the failure that matters reaches us as an exception
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    try:
        return asyncio.run(coro)
    except (KafkaError, KafkaException, ConnectionError, OSError) as e:
        _fail(f"cannot use the event log: {e or type(e).__name__}. Is the broker running? "
              "(make kafka-up starts one on 127.0.0.1:19092)", 1)
    except RuntimeError as e:
        _fail(str(e), 1)


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=err, transient=False)


def _write_json(path: Optional[Path], data) -> None:
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        except OSError as e:
            _fail(f"cannot write {path}: {e.strerror}")
        err.print(f"wrote {path}")


def print_tables(standings: dict, crosstable: dict, title: str) -> None:
    """Crosstable and final standings as rich tables on stdout."""
    ct = Table(title=f"{title}: crosstable")
    ct.add_column("No", justify="right")
    ct.add_column("Player")
    for r in crosstable.get("rounds", []):
        ct.add_column(f"R{r}", justify="center")
    ct.add_column("Pts", justify="right")
    for row in crosstable.get("rows", []):
        ct.add_row(str(row["number"]), row["name"] or row["player_id"], *row["cells"], f"{row['score']:g}")
    out.print(ct)
    st = Table(title=f"{title}: final standings")
    st.add_column("Rank", justify="right")
    st.add_column("Player")
    st.add_column("Pts", justify="right")
    order = standings.get("order", [])
    for code in order:
        st.add_column(code, justify="right")
    for row in standings.get("rows", []):
        st.add_row(str(row["rank"]), row["name"], f"{row['score']:g}",
                   *[f"{row['tiebreaks'].get(c, 0):g}" for c in order])
    out.print(st)


@app.command()
def demo(bus: str = typer.Option("memory", help=BUS_HELP),
         players: int = typer.Option(6, min=2, max=64, help="bot players (round robin)"),
         seed: int = typer.Option(2026, help="seed of the bots' choices"),
         time_control: Optional[str] = typer.Option(None, help="time control, real clocks (default: "
                                                    "4 s; Go: '20 3x2 byo-yomi')"),
         game: str = typer.Option("chess", help="chess, xiangqi or go (9x9)"),
         json_out: Optional[Path] = typer.Option(None, "--json", help="write the result as JSON"),
         serve: bool = typer.Option(False, "--serve", help="instead: keep a live demo in the browser "
                                    "(you against a bot, bots' games for spectators; memory bus) "
                                    "until Ctrl-C"),
         port: int = typer.Option(8080, min=0, max=65535, help="--serve: the port on 127.0.0.1")):
    """Host a self-contained round robin of bot players on real clocks, all services in one
    process (memory bus) or through Kafka; print the crosstable and final standings. With
    --serve: a live demo of --game at http://127.0.0.1:PORT/, printing the URLs and tokens of a
    player, an arbiter and a spectator."""
    if serve:
        return _serve_demo(port, seed, game)
    from services.tools.demo import run_demo
    from services.tools.supervisor import ensure_keys
    # one run's own keys (as arbiter up draws them), not a warning for each one missing
    if (drawn := ensure_keys()) and bus != "memory":
        err.print(f"arbiter demo: no ARBITER_SIGNING_KEY: this run signs its checkpoints with a key "
                  f"of its own; audit them with --verify-key {drawn}", soft_wrap=True)
    try:
        if game not in ("chess", "xiangqi", "go"):
            raise ValueError(f"unknown game {game!r}: chess, xiangqi or go")
        result = _run(run_demo(bus, players=players, seed=seed, time_control=time_control,
                                progress_factory=_progress, game=game))
    except ValueError as e:
        _fail(str(e))
    print_tables(result["standings"], result["crosstable"], result["name"])
    out.print(f"{result['games']} games, {result['moves']} moves, results by reason: {result['reasons']}; "
              f"{result['seconds']:.1f} s")
    _write_json(json_out, result)


def _serve_demo(port: int, seed: int, game: str) -> None:
    from services.tools import demo_serve

    async def main() -> None:
        async with demo_serve.start(port=port, seed=seed, game=game) as d:
            urls = d.urls()
            out.print(f"Arbiter demo at [bold]{urls['index']}[/bold] (Ctrl-C stops it)", soft_wrap=True)
            out.print(f"player (you, {'Red' if game == 'xiangqi' else 'White'} against a bot):\n  {urls['player']}", soft_wrap=True)
            out.print(f"arbiter (chief, every game; the console):\n  {urls['arbiter']}", soft_wrap=True)
            out.print(f"spectator (bots' live games; no token):\n  {urls['spectator']}", soft_wrap=True)
            out.print(f"spectator, the bots' event (live boards, standings, crosstable):\n  {urls['event']}", soft_wrap=True)
            out.print(f"organiser (create events, register players, pair rounds):\n  {urls['organiser']}", soft_wrap=True)
            out.print(f"tokens (Authorization: Bearer ...):\n  player  {d.tokens['player']}\n"
                      f"  arbiter {d.tokens['arbiter']}", soft_wrap=True)
            await asyncio.Event().wait()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    except (OSError, RuntimeError, ValueError) as e:
        _fail(f"demo --serve: {e}", 1)


@app.command("run-tournament")
def run_tournament(pgn: Path = typer.Option(..., "--pgn", exists=True, dir_okay=False, help="PGN of a complete round robin, or a xiangqi record (PGN or tournament text)"),
                   bus: str = typer.Option("memory", help=BUS_HELP),
                   gateway: Optional[str] = typer.Option(None, help="URL of a running gateway (arbiter up); overrides --bus"),
                   pairings: str = typer.Option("auto", help="berger | recorded | auto"),
                   tiebreaks: str = typer.Option("", help="tie-break codes in order (default: the game's own, xiangqi art. 15.1/15.2)"),
                   tournament_id: Optional[str] = typer.Option(None, help="id of the hosted tournament"),
                   json_out: Optional[Path] = typer.Option(None, "--json", help="write the report as JSON")):
    """Host the tournament recorded in PGN (or a xiangqi record, with its recorded pairings)
    through the gateway and services, then compare the pairings, results and scores with the
    record (exit 1 if any differs)."""
    from services.tools.embedded import arbiter_client
    from services.tools.host import HostError, host_record
    from shared.rules.pgnrecord import RecordError, read_event
    if pairings not in ("berger", "recorded", "auto"):
        _fail("--pairings must be berger, recorded or auto")
    try:
        rec = read_event(pgn)
    except RecordError as e:
        _fail(str(e))
    total = sum(len(g) for g in rec.rounds.values())

    async def main():
        with _progress() as prog:
            task = prog.add_task(f"hosting {rec.name}", total=total)
            async with arbiter_client(bus, gateway=gateway, ticks=False) as c:
                return await host_record(c, str(pgn), pairings=pairings, tournament_id=tournament_id,
                                         tiebreaks=tuple(t for t in tiebreaks.split(",") if t),
                                         progress=lambda n=1: prog.advance(task, n))
    try:
        report = _run(main())
    except (HostError, RecordError, ValueError) as e:
        _fail(str(e), 1)
    print_tables(report.standings, report.crosstable, rec.name)
    ok = report.pairings_match_record and report.results_match_record and report.scores_match_record
    out.print(f"pairings ({report.pairing_system}) match record: {report.pairings_match_record}; "
              f"results match: {report.results_match_record}; scores match: {report.scores_match_record}")
    for p in report.problems:
        err.print(f"[yellow]{p}[/yellow]")
    _write_json(json_out, report.as_dict())
    raise typer.Exit(0 if ok else 1)


@app.command()
def replay(files: list[Path] = typer.Argument(..., exists=True, dir_okay=False, help="PGN, xiangqi or SGF (Go) files"),
           json_out: Optional[Path] = typer.Option(None, "--json", help="write per-game rows as JSON")):
    """Replay game records through validation and adjudication (Go SGF: on the Go engine); per
    game: moves accepted, the first rejected move and why, the recorded result and the
    platform's (with its reason)."""
    from services.tools.replay import is_sgf, replay_files
    from shared.rules.pgnrecord import RecordError, read_games
    try:
        total = sum(1 if is_sgf(f) else len(read_games(f)) for f in files)
    except RecordError as e:
        _fail(str(e))
    with _progress() as prog:
        task = prog.add_task("replaying", total=total)
        rows = replay_files([str(f) for f in files], progress=lambda n: prog.advance(task, n))
    rejected = [r for r in rows if r["first_rejected"]]
    decided = [r for r in rows if r["result"] != "*"]
    disagree = [r for r in decided if r["result"] != r["recorded_result"]]
    t = Table(title="replay")
    for c in ("games", "moves accepted", "games with a rejected move", "ended on the board",
              "board result differs from record"):
        t.add_column(c, justify="right")
    t.add_row(str(len(rows)), f"{sum(r['accepted'] for r in rows)}/{sum(r['moves'] for r in rows)}",
              str(len(rejected)), str(len(decided)), str(len(disagree)))
    out.print(t)
    for r in rejected[:20]:
        out.print(f"{r['file']}#{r['index'] + 1}: ply {r['first_rejected']['ply']} "
                  f"{r['first_rejected']['move']}: {r['first_rejected']['reason']}")
    _write_json(json_out, {"games": rows})
    raise typer.Exit(1 if rejected or disagree else 0)


@app.command()
def perft(game: str = typer.Option("xiangqi", help="xiangqi or chess"),
          fen: Optional[str] = typer.Option(None, help="start position (FEN); the game's start if omitted"),
          depth: int = typer.Option(..., min=1, max=6, help="plies (xiangqi depth 5 takes minutes)")):
    """Count the leaf nodes of the legal-move tree (perft) to DEPTH plies; prints the count."""
    if game == "xiangqi":
        from shared.rules.xiangqi import START_FEN, Board, XiangqiError
        try:
            board = Board(fen or START_FEN)
        except XiangqiError as e:
            _fail(f"bad FEN: {e}")
        out.print(board.perft(depth))
    elif game == "chess":
        import chess
        try:
            board = chess.Board(fen) if fen else chess.Board()
        except ValueError as e:
            _fail(f"bad FEN: {e}")

        def count(b: chess.Board, d: int) -> int:
            if d == 1:
                return b.legal_moves.count()
            n = 0
            for m in b.legal_moves:
                b.push(m)
                n += count(b, d - 1)
                b.pop()
            return n
        out.print(count(board, depth))
    else:
        _fail(f"unknown game {game!r}: xiangqi or chess")


@app.command()
def adjudicate(game: str = typer.Option("xiangqi", help="xiangqi, chess or go"),
               fen: Optional[str] = typer.Option(None, help="start position (FEN); the game's start if omitted"),
               moves: str = typer.Option("", help='moves separated by spaces: "h2e2 h9g7 ..." (ICCS, WXF or Chinese notation; chess UCI/SAN; Go: GTP "D4"/"pass" or SGF "dd")'),
               sgf: Optional[Path] = typer.Option(None, "--sgf", exists=True, dir_okay=False, help="Go: the game record (SGF) to play before MOVES"),
               rules: Optional[str] = typer.Option(None, "--rules", help="Go: chinese, japanese, ing, tromp-taylor, aga, nz or korean (default: the record's RU, else chinese; overrides RU)"),
               dead: Optional[str] = typer.Option(None, "--dead", help='Go: dead stones counted when play stops, as for `arbiter score`: "D4,Q16", "none", "auto"; default: the record\'s TB/TW marks, else the estimate'),
               json_flag: bool = typer.Option(False, "--json", help="print the ruling as JSON")):
    """Play MOVES from FEN (Go: after the SGF record) through the platform's validation and
    adjudication (Go: the Go engine) and print the ruling: legal or the first refused move, the
    result and the article, and for xiangqi each move's 棋例 classification (check, mate-threat,
    chase, idle). Exit 0 when every move was legal."""
    from services.tools.adjudicate import adjudicate as run
    if game == "go":
        _adjudicate_go(sgf, rules, moves, dead, json_flag)
    if game not in ("xiangqi", "chess"):
        _fail(f"unknown game {game!r}: xiangqi, chess or go")
    if sgf is not None or rules is not None or dead is not None:
        _fail("--sgf, --rules and --dead are for --game go")
    try:
        row = run(game, fen, moves.split())
    except ValueError as e:
        _fail(str(e))
    if json_flag:
        sys.stdout.write(json.dumps(row, ensure_ascii=False, indent=2) + "\n")
    else:
        t = Table(title=f"{game}: {len(row['moves'])} moves")
        for c in ("ply", "move", "notation", "side", "classification"):
            t.add_column(c)
        for i, m in enumerate(row["moves"], start=1):
            t.add_row(str(i), m["move"], m["notation"], m["side"], m.get("classification", ""))
        out.print(t)
        _print_outcome(row, article=False)
    raise typer.Exit(0 if row["legal"] else 1)


def _print_outcome(row: dict, article: bool) -> None:
    """An adjudication's end, as ``arbiter adjudicate`` prints it: the first refused move (with
    its article when ``article``), then the result, its reason and the rule applied."""
    if row["first_rejected"]:
        fr = row["first_rejected"]
        where = f" ({fr['article']})" if article else ""
        out.print(f"refused: ply {fr['ply']} {fr['move']}: {fr['reason']}{where}")
    rule = row["rule"] or {}
    out.print(f"result {row['result']} ({row['reason']}) {rule.get('ruleset', '')} "
              f"{rule.get('article', '')}".rstrip())


def _adjudicate_go(sgf: Optional[Path], rules: Optional[str], moves: str, dead: Optional[str],
                   json_flag: bool) -> None:
    from services.tools.adjudicate import adjudicate_go
    from services.tools.score import ScoreError, dead_words, load
    try:
        record = load(sgf) if sgf is not None else None
        row = adjudicate_go(record, rules, moves.split(), dead_words(dead, record.size if record else 19))
    except (ScoreError, ValueError) as e:
        if json_flag:  # --json always prints JSON: the reason, exit 2 (unreadable input)
            sys.stdout.write(json.dumps({"legal": False, "error": str(e)}, ensure_ascii=False) + "\n")
        _fail(str(e))
    if json_flag:
        sys.stdout.write(json.dumps(row, ensure_ascii=False, indent=2) + "\n")
    else:
        out.print(f"go ({row['rules']} rules): {row['plies']} moves played")
        for w in row["warnings"]:
            out.print(f"warning: {w}")
        _print_outcome(row, article=True)
    raise typer.Exit(0 if row["legal"] else 1)


@app.command()
def score(sgf: Path = typer.Option(..., "--sgf", exists=True, dir_okay=False, help="Go record (SGF) of a finished game"),
          rules: Optional[str] = typer.Option(None, "--rules", help="chinese, japanese, ing, tromp-taylor, aga, nz or korean (default: the record's RU, else chinese; overrides RU)"),
          komi: Optional[float] = typer.Option(None, "--komi", help="komi in points (default: the record's KM, else the rules' default)"),
          dead: Optional[str] = typer.Option(None, "--dead", help='dead stones, GTP or SGF points: "D4,Q16"; "none"; "auto" (Monte-Carlo estimate). Default: the record\'s TB/TW marks, else the estimate'),
          json_flag: bool = typer.Option(False, "--json", help="print the count as JSON")):
    """Count the final board of a Go record: area (Chinese, Ing) or territory (Japanese) scoring
    with the dead stones removed; prints black, white, the result and the articles applied."""
    from services.tools.score import ScoreError, score_file
    try:
        row = score_file(sgf, rules, komi, dead)
    except ScoreError as e:
        _fail(str(e))
    if json_flag:
        sys.stdout.write(json.dumps(row, ensure_ascii=False, indent=2) + "\n")
    else:
        out.print(f"black {row['black']:g}  white {row['white']:g}  {row['result']}  "
                  f"({row['rules']} rules, komi {row['komi']:g}, {len(row['dead'])} dead stones "
                  f"from {row['dead_source']}; record: {row['recorded_result'] or '-'})")
        out.print(row["rule"])
        for w in row["warnings"]:
            out.print(f"warning: {w}")


def _boards(boards: list[list[int]], bye) -> str:
    """``12-7  3-9  bye 5``: white-black start numbers of the boards that differ, and the bye."""
    text = "  ".join(f"{w}-{b}" for w, b in boards) or "(no other board)"
    return text + (f"  bye {bye}" if bye is not None else "")


@app.command("check-pairings")
def check_pairings_cmd(
    trf: Path = typer.Option(..., "--trf", exists=True, dir_okay=False, help="TRF-16 file"),
    system: str = typer.Option("dutch", "--system", help="pairing system (dutch)"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write the report as JSON here"),
) -> None:
    """Re-pair every round of a TRF from the rounds before it and compare with the record (FIDE
    endorsement-style check): per round official vs ours; exit 0 only when all rounds match."""
    from services.pairing.check import check_pairings
    from shared.domain.trf import TrfError
    try:
        rep = check_pairings(trf, system=system)
    except (TrfError, ValueError) as e:
        _fail(str(e))
    except Exception as e:  # the pairing engine refusing the history (e.g. py4swiss ConsistencyError)
        _fail(f"the pairing engine refused {trf}: {type(e).__name__}: {e}", 1)
    for r in rep["rounds"]:
        out.print(f"round {r['round']:>2}: {'match' if r['matched'] else 'DIFFERS'}"
                  f"  ({len(r['official'])} boards, bye official {r['official_bye']} / ours {r['our_bye']})"
                  + (f"  error: {r['error']}" if r.get("error") else ""))
        if not r["matched"] and not r.get("error"):
            out.print("    official: " + _boards(r["official_only"], r["official_bye"]))
            out.print("    ours:     " + _boards(r["ours_only"], r["our_bye"]))
    n = sum(r["matched"] for r in rep["rounds"])
    out.print(f"{n}/{len(rep['rounds'])} rounds matched ({rep['engine']})")
    _write_json(json_out, rep)
    raise typer.Exit(0 if rep["matched_all"] else 1)


@app.command("standings")
def standings_cmd(
    trf: Optional[Path] = typer.Option(None, "--trf", exists=True, dir_okay=False, help="FIDE TRF file"),
    pgn: Optional[Path] = typer.Option(None, "--pgn", exists=True, dir_okay=False,
                                       help="PGN of results (headers only is enough)"),
    tiebreaks: str = typer.Option("BH-C1,BH,SB", "--tiebreaks",
                                  help="FIDE codes in order, e.g. BH-C1,BH,SB, or a ruleset: "
                                       "forfeit-draw-2005 | xiangqi-round-robin | xiangqi-swiss"),
    unplayed: Optional[str] = typer.Option(None, "--unplayed",
                                           help="unplayed games: fide2023 (default) | fide2009 | "
                                                "forfeit-draw | none; a ruleset sets its own"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write {players: [...]} here"),
) -> None:
    """Ranks and tie-break values of a finished event (FIDE C.07 2023 codes, Go SOS/SOSOS/SODOS)."""
    from services.standings.core import StandingsError
    from services.standings.report import standings_from_file
    if (trf is None) == (pgn is None):
        _fail("give exactly one of --trf or --pgn")
    try:
        data = standings_from_file(trf or pgn, tiebreaks, unplayed=unplayed)
    except (StandingsError, ValueError, OSError) as e:
        _fail(str(e))
    codes = data["order"]
    table = Table("rank", "name", "id", "score", *codes)
    for p in data["players"]:
        table.add_row(str(p["rank"]), p["name"], p["id"], f"{p['score']:g}",
                      *(f"{p['tiebreaks'][c]:g}" for c in codes))
    out.print(table)
    _write_json(json_out, {"players": data["players"]})


def _ratings_table(title: str, rows) -> Table:
    """The table of ``arbiter ratings``: one row per ``PlayerChange``, every column as wide
    as its widest cell except the name (at most 24 characters, fewer on a narrow console)."""
    dash = "-"
    cells = [(str(r.number), r.name, str(r.rating or dash), str(r.k or dash), r.k_source or "unrated",
              str(r.games), f"{r.score:g}", dash if r.expected is None else f"{r.expected:.2f}",
              dash if r.change is None else f"{r.change:+.2f}",
              dash if r.performance is None else str(r.performance)) for r in rows]
    heads = ("No", "Name", "Rtg", "K", "K from", "G", "W", "We", "K(W-We)", "Rp")
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(heads)]
    widths[1] = max(8, min(24, widths[1], out.width - (sum(widths) - widths[1]) - 3 * len(heads) - 1))
    table = Table(title=title)
    for h, w in zip(heads, widths):
        table.add_column(h, justify="left" if h in ("Name", "K from") else "right", width=w,
                         no_wrap=True, overflow="ellipsis")
    for c in cells:
        table.add_row(*c)
    return table


@app.command("ratings")
def ratings_cmd(
    trf: Path = typer.Option(..., "--trf", help="FIDE TRF file (TRF-16 / TRF-26 player lines)"),
    k: int = typer.Option(20, "--k", help="K where the TRF cannot tell it (not >= 2400, not a "
                                          "junior under 2300): 20 = established, never 2400"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write {players: [...]} here"),
) -> None:
    """Each player's FIDE rating change over the event's rated games (B.02 of 1 March 2024 as
    amended 1 October 2025): K, games, score W, expected We, K(W - We), performance Rp."""
    from dataclasses import asdict

    from shared.domain.trf import TrfError, read_trf
    from services.ratings.report import event_changes
    if k <= 0:
        _fail(f"--k must be a positive whole number (B.02 art. 8.3.3), got {k}")
    try:
        t = read_trf(trf)
        rows = event_changes(t, default_k=k)
    except OSError as e:
        _fail(f"cannot read {trf}: {e.strerror or e}")
    except (TrfError, ValueError) as e:
        _fail(f"{trf}: {e}")
    out.print(_ratings_table(f"{t.name or trf.name}: FIDE rating changes", rows))
    out.print(f"K from: rating (>= 2400: 10), age (junior under 2300: 40), given (--k {k}).")
    out.print("Not rated: forfeits, byes, games against unrated players (B.02 5.1, 8.3.1).")
    _write_json(json_out, {"players": [asdict(r) for r in rows]})


@app.command("export")
def export(what: str = typer.Argument(..., help="trf"),
           tournament: Optional[str] = typer.Option(None, "--tournament",
                                                    help="tournament id (with --log: default the log's only tournament)"),
           bus: Optional[str] = typer.Option(None, help=BUS_HELP),
           log: Optional[Path] = typer.Option(None, "--log", exists=True, dir_okay=False, help="NDJSON from export-log"),
           out_file: Optional[Path] = typer.Option(None, "--out", help="file (default stdout)")):
    """Write a tournament as a FIDE TRF-16 file (players, every round's pairings and results,
    points and ranks of the last standings), from the log (--bus) or an export-log file (--log)."""
    from services.tools.logio import export_messages, read_ndjson
    from shared.domain.trfexport import export_trf
    if what != "trf":
        _fail(f"unknown export {what!r}: trf")
    if (bus is None) == (log is None):
        _fail("give exactly one of --bus or --log")
    if tournament is None and bus is not None:
        _fail("give --tournament ID with --bus")
    try:
        if log is not None:
            msgs = read_ndjson(log)  # a malformed line: "line N of FILE: ..."
            if tournament is None:
                from contracts.messages import TournamentCreated
                ids = sorted({m.payload.tournament_id for m in msgs if isinstance(m.payload, TournamentCreated)})
                if len(ids) != 1:
                    _fail(f"the log holds {len(ids)} tournaments ({', '.join(ids) or 'none'}): "
                          "give --tournament ID")
                tournament = ids[0]
        else:
            msgs = _run(export_messages(bus, f"tournament-{tournament}"))
        text = export_trf(msgs, tournament)
    except (ValueError, OSError) as e:
        _fail(str(e).splitlines()[0])
    if out_file:
        try:
            out_file.write_text(text, encoding="utf-8")
        except OSError as e:
            _fail(f"cannot write {out_file}: {e.strerror}", 1)
        err.print(f"wrote {out_file}")
    else:
        sys.stdout.write(text)


def _trf_importer():
    from shared.domain.trf import read_trf
    from services.tools.trfimport import check_importable, import_trf
    return read_trf, check_importable, import_trf, "BH-C1,BH,SB"


def _h9_importer():
    from services.tools.h9import import check_importable, import_h9, read_h9
    return read_h9, check_importable, import_h9, ""


#: ``import WHAT``: (reader, importability check, hosting coroutine, default --tiebreaks;
#: empty: the system's own).
_IMPORTERS = {"trf": _trf_importer, "h9": _h9_importer}


@app.command("import")
def import_cmd(what: str = typer.Argument(..., help="trf or h9"),
               file: Path = typer.Argument(..., exists=True, dir_okay=False,
                                           help="TRF-16 file (FIDE, lichess, Swiss-Manager) or OpenGotha .h9 results list"),
               bus: Optional[str] = typer.Option(None, help=BUS_HELP + " (default memory: give --log to keep it)"),
               log: Optional[Path] = typer.Option(None, "--log", dir_okay=False, help="write the tournament's messages here (NDJSON, as export-log)"),
               tournament_id: Optional[str] = typer.Option(None, help="id of the imported tournament"),
               tiebreaks: Optional[str] = typer.Option(None, help="tie-break codes in order (default: trf BH-C1,BH,SB; h9 the McMahon MMS,SOS,SOSOS)")):
    """Write the tournament a TRF (a chess Swiss) or an OpenGotha .h9 results list (a Go
    McMahon) records as our events (tournament, players, every round's pairing entered manually
    with byes, results and forfeits), hosted through the gateway on --bus; --log writes its
    messages to a file (read by export trf --log, audit --log)."""
    from contracts.messages import LOG_TOPICS
    from services.tools.embedded import arbiter_client
    from services.tools.host import HostError
    from services.tools.logio import select
    if what not in _IMPORTERS:
        _fail(f"unknown import {what!r}: trf, h9")
    read, check_importable, import_event, default_tiebreaks = _IMPORTERS[what]()
    codes = tuple(x for x in (default_tiebreaks if tiebreaks is None else tiebreaks).split(",") if x)
    if bus is None and log is None:
        _fail("give --bus (a running log) and/or --log FILE")
    if tournament_id is not None:
        from pydantic import TypeAdapter, ValidationError

        from contracts.messages import GameId
        try:
            TypeAdapter(GameId).validate_python(tournament_id)
        except ValidationError:
            _fail(f"--tournament-id {tournament_id!r}: 1 to 80 letters, digits, '_' or '-'")
    try:
        record = read(file)
        check_importable(record)
        games = record.games()
    except (ValueError, OSError) as e:
        _fail(f"{file}: {e}")
    if log is not None:  # as --json: parent directories are created, before the import runs
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            _fail(f"cannot write {log}: {e.strerror}", 1)
        import os
        if not os.access(log.parent, os.W_OK):
            _fail(f"cannot write {log}: permission denied", 1)

    async def main():
        with _progress() as prog:
            task = prog.add_task(f"importing {file.name}", total=games)
            async with arbiter_client(bus or "memory", ticks=False) as c:
                report = await import_event(c, file, tournament_id=tournament_id, tiebreaks=codes,
                                            progress=lambda n=1: prog.advance(task, n))
                # with the checkpoints (as export-log): the games' and the event's end ones sign the log
                msgs = select(await c.arbiter_log.read_many(LOG_TOPICS), f"tournament-{report.tournament_id}")
                return report, msgs
    try:
        report, msgs = _run(main())
    except (HostError, ValueError) as e:
        _fail(str(e).splitlines()[0], 1)
    if log is not None:
        try:
            log.write_text("".join(m.model_dump_json() + "\n" for m in msgs), encoding="utf-8")
        except OSError as e:
            _fail(f"cannot write {log}: {e.strerror}", 1)
        err.print(f"wrote {len(msgs)} messages to {log}")
    out.print(f"tournament {report.tournament_id}: {len(report.players)} players, {len(report.games)} games; "
              f"scores match the {what.upper()}: {report.scores_match_record}")
    for p in report.problems:
        err.print(f"[yellow]{escape(p)}[/yellow]")
    raise typer.Exit(0 if report.scores_match_record else 1)


@app.command("export-log")
def export_log(bus: str = typer.Option(..., help=BUS_HELP + " (a memory bus is empty)"),
               stream: str = typer.Option(..., help="aggregate: game-<id> or tournament-<id> (a tournament includes its games)"),
               out_file: Optional[Path] = typer.Option(None, "--out", help="file (default stdout)")):
    """Write every message of a game or tournament (commands and events, log order) as NDJSON."""
    from services.tools.logio import export_messages
    try:
        msgs = _run(export_messages(bus, stream))
    except ValueError as e:
        _fail(str(e))
    if not msgs:
        _fail(f"no messages for {stream} on {bus}", 1)
    text = "".join(m.model_dump_json() + "\n" for m in msgs)
    if out_file:
        out_file.write_text(text)
        err.print(f"wrote {len(msgs)} messages to {out_file}")
    else:
        sys.stdout.write(text)


@app.command()
def audit(log: Optional[Path] = typer.Option(None, "--log", exists=True, dir_okay=False, help="NDJSON from export-log"),
          bus: Optional[str] = typer.Option(None, help=BUS_HELP),
          stream: Optional[str] = typer.Option(None, help="aggregate to audit: game-<id> or "
                                               "tournament-<id>, with its games (left out: every "
                                               "game and tournament of the log)"),
          json_out: Optional[Path] = typer.Option(None, "--json"),
          verify_key: list[str] = typer.Option([], "--verify-key", help="an Ed25519 public key "
                                               "(base64) trusted for checkpoints; repeatable; "
                                               "with ARBITER_VERIFY_KEYS"),
          anchors: Optional[Path] = typer.Option(None, "--anchors", exists=True, dir_okay=False,
                                                 help="NDJSON of an earlier copy of the log (export-log) "
                                                 "kept elsewhere: its signed checkpoints must be in "
                                                 "the log, which must reach every head they sign")):
    """Re-derive every decision from the log's commands and print each difference, verify every
    stream's hash chain and the signed checkpoints and print each integrity finding (exit 0 when
    there is neither): an NDJSON export, one aggregate of a bus, or a bus's whole log."""
    import os

    from services.tools.audit import audit as run_audit
    from services.tools.integrity import check
    from services.tools.logio import audit_input, read_ndjson, select
    from shared.config import ConfigError
    from shared.heap import paused_gc
    from shared.signing import verify_keys
    if (log is None) == (bus is None):
        _fail("give --log FILE, or --bus URL (with --stream ID for one game or tournament)")
    try:
        keys = verify_keys(verify_key)
    except ConfigError as e:
        _fail(str(e))
    with paused_gc():  # reading and re-deriving make next to no garbage cycles
        try:
            msgs, pending = (read_ndjson(log), {}) if log else _run(audit_input(bus, stream))
            if log and stream:  # as --bus --stream does (it was ignored: the whole file audited)
                msgs = select(msgs, stream)
        except ValueError as e:
            _fail(str(e))
        if not msgs:  # 0 differences of nothing read is no audit (as export-log: exit 1)
            _fail(f"no messages {f'for {stream} ' if stream else ''}in {log or bus}: nothing audited", 1)
        diffs = _run(run_audit(msgs, workers=os.cpu_count() or 1, pending=pending))
        try:
            kept = read_ndjson(anchors) if anchors else None
        except ValueError as e:
            _fail(f"--anchors: {e}")
        integrity = check(msgs, keys, kept)
    decisions = sum(1 for m in msgs if m.payload.KIND == "event")
    for d in diffs:
        out.print(f"[red]DIFF[/red] {d}")
    for f in integrity.findings:
        out.print(f"[red]INTEGRITY[/red] {f}")
    out.print(integrity.summary())
    undecided = _not_decided_yet(msgs, pending)
    out.print(f"audited {len(msgs)} messages, {decisions} decisions: {len(diffs)} difference(s)"
              + ("; left out, not decided yet when read (a live log): "
                 + ", ".join(f"{u['inputs']} input(s) of {name}, the oldest {u['oldest_s']} s old"
                             for name, u in undecided.items()) if undecided else ""))
    for name, u in undecided.items():
        if u["oldest_s"] > 60:
            out.print(f"[yellow]{name} has not decided an input received {u['oldest_s']} s before "
                      f"the read: is it running? (`arbiter up` / its /healthz)[/yellow]")
    _write_json(json_out, {"messages": len(msgs), "differences": [d.as_dict() for d in diffs],
                           "not_decided_yet": undecided,
                           "integrity": {"findings": [f.as_dict() for f in integrity.findings],
                                         "unchained_streams": integrity.unchained,
                                         "unattested_messages": integrity.unattested,
                                         "checkpoints": integrity.checkpoints,
                                         "trusted_checkpoints": integrity.trusted,
                                         "signatures_checked": integrity.signatures_checked,
                                         "anchors": integrity.anchors,
                                         "trusted_anchors": integrity.anchors_trusted}})
    raise typer.Exit(1 if diffs or integrity.findings else 0)


@app.command("signing-key")
def signing_key_cmd():
    """Make an Ed25519 key pair for the checkpoints: ARBITER_SIGNING_KEY (give it to the game
    and tournament processes, keep it secret) and its public key (for ARBITER_VERIFY_KEYS /
    ``arbiter audit --verify-key``)."""
    from shared.signing import new_key

    private, public = new_key()
    sys.stdout.write(f"ARBITER_SIGNING_KEY={private}\nARBITER_VERIFY_KEYS={public}\n")


def _not_decided_yet(msgs: list, pending: dict[str, set]) -> dict[str, dict]:
    """Per process with inputs left out of a live log's audit: how many, and the age in
    seconds of the oldest (its receive time, against now)."""
    import time

    now_ms = time.time_ns() // 1_000_000
    out = {}
    for name, ids in pending.items():
        times = [m.at_ms for m in msgs if m.event_id in ids]
        if times:
            out[name] = {"inputs": len(times), "oldest_s": round((now_ms - min(times)) / 1000, 1)}
    return out


def _settings():
    """The environment's settings (:mod:`shared.config`), or a clear failure naming the variable."""
    from shared.config import ConfigError, settings
    try:
        return settings()
    except ConfigError as e:
        _fail(str(e))


@app.command()
def up(bus: Optional[str] = typer.Option(None, help="Kafka bootstrap (kafka://HOST:PORT; default ARBITER_BUS)"),
       port: int = typer.Option(8000, help="gateway HTTP port; the game and tournament processes port+1, port+2")):
    """Start the game and tournament processes and the gateway on Kafka (Ctrl-C stops)."""
    from services.tools.supervisor import run_all
    from shared.eventlog.kafka import no_broker
    bus = bus or _settings().bus
    if not bus.startswith("kafka://"):
        _fail("arbiter up needs --bus kafka://HOST:PORT (make kafka-up starts a local broker)")
    if (why := no_broker(bus)) is not None:  # one line, not every process's traceback
        _fail(why, 1)
    raise typer.Exit(run_all(bus, port))


@app.command()
def serve(service: str = typer.Argument(..., help="gateway, game (validation, clock, adjudication, penalties), tournament (pairing, standings), webhooks"),
          bus: Optional[str] = typer.Option(None, help="kafka://HOST:PORT (default ARBITER_BUS)"),
          port: int = typer.Option(0, help="HTTP port for /healthz and /metrics (0 = default)"),
          host: str = typer.Option("127.0.0.1", help="HTTP address (beyond loopback only with "
                                   "the keys `arbiter config` names: the gateway ARBITER_JWT_SECRET)")):
    """Run one service alone (same as ``python -m services.<name>``)."""
    from services.runner import run_service
    try:
        run_service(service, bus, port or None, host)
    except ValueError as e:
        _fail(str(e))


@app.command()
def config():
    """The settings this environment gives every Arbiter process (ARBITER_* variables; secrets
    shown only as set or not set)."""
    from shared.config import describe
    table = Table(box=None)
    table.add_column("variable", no_wrap=True)
    table.add_column("value", no_wrap=True)
    table.add_column("what")
    for var, value, what in describe(_settings()):
        table.add_row(var, escape(value), escape(what))
    out.print(table)


token_app = typer.Typer(no_args_is_help=True, help="Bearer tokens for the gateway (ARBITER_JWT_SECRET).")
app.add_typer(token_app, name="token")


@token_app.command("issue")
def token_issue(role: str = typer.Option(..., help="admin, organiser, arbiter, player or integrator"),
                sub: str = typer.Option(..., help="the principal's id (a player's player id)"),
                event: list[str] = typer.Option([], "--event", help="a tournament id the token may act "
                                                "in (repeat; '*' for every event)"),
                ttl: str = typer.Option("30d", help="lifetime: 90s, 15m, 12h, 30d (at most 366d)"),
                chief: bool = typer.Option(False, "--chief", help="arbiter: chief arbiter of the events")):
    """Print a signed bearer token (JWT) for the gateway: an administrator (--role admin, as
    ``arbiter admin create``) or anyone else. Needs ARBITER_JWT_SECRET (the gateway's)."""
    _print_token(role, sub, event, ttl, chief)


@token_app.command("revoke")
def token_revoke(token: Optional[str] = typer.Option(None, help="the token to revoke ('-': read it "
                                                     "from standard input, out of the shell's history)"),
                 jti: Optional[str] = typer.Option(None, help="or its id (jti): the administrator only"),
                 reason: str = typer.Option("", help="why (kept on the log, up to 500 characters)"),
                 gateway: str = typer.Option("http://127.0.0.1:8000", help="URL of the gateway"),
                 bearer: Optional[str] = typer.Option(None, envvar="ARBITER_BEARER", help="your own "
                                                      "bearer token (default: ARBITER_ADMIN_TOKEN as "
                                                      "the administrator, else the token revoked: "
                                                      "its holder revokes it)")):
    """Revoke a bearer token at a running gateway (POST /tokens/revocations): from then on it
    is 401 token-revoked at every gateway on the log. Who may: the administrator any token
    (also by --jti), an organiser the player and arbiter tokens of his events, a holder his
    own. Prints the answer (jti, sub, role, expires_at_s); exit 1 with the gateway's reason
    and code when refused or unreachable."""
    import httpx

    if token == "-":
        token = sys.stdin.readline().strip()
    if (token is None) == (jti is None):
        _fail("give exactly one of --token and --jti")
    admin = _settings().admin_token
    headers = ({"Authorization": f"Bearer {bearer}"} if bearer else
               {"X-Arbiter-Token": admin.get_secret_value()} if admin else
               {"Authorization": f"Bearer {token}"} if token else {})
    body = {"token": token} if token else {"jti": jti}
    try:
        r = httpx.post(f"{gateway.rstrip('/')}/tokens/revocations", json={**body, "reason": reason},
                       headers=headers, timeout=30)
    except httpx.HTTPError as e:
        _fail(f"cannot reach the gateway at {gateway}: {e or type(e).__name__}", 1)
    answer = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
    if r.status_code != 200:
        _fail(f"refused ({r.status_code} {answer.get('code', '')}): {answer.get('detail', r.text[:300])}", 1)
    print(json.dumps(answer))


admin_app = typer.Typer(no_args_is_help=True, help="The platform administrator (ARBITER_JWT_SECRET).")
app.add_typer(admin_app, name="admin")


@admin_app.command("create")
def admin_create(sub: str = typer.Option("admin", help="the administrator's id"),
                 ttl: str = typer.Option("30d", help="lifetime: 90s, 15m, 12h, 30d (at most 366d)")):
    """Bootstrap the platform administrator: print a bearer token of role admin (every event,
    every right; revocable with POST /tokens/revocations). There is no default administrator:
    without ARBITER_JWT_SECRET this refuses (exit 1)."""
    _print_token("admin", sub, [], ttl, False)


def _print_token(role: str, sub: str, event: list[str], ttl: str, chief: bool) -> None:
    """Print a token signed with ARBITER_JWT_SECRET (its principal, events and expiry on
    stderr); exit 1 naming the problem without the secret or for a bad role, id or lifetime."""
    from datetime import datetime, timezone

    from services.gateway.identity import issue_token, parse_ttl
    secret = _settings().jwt_secret
    if secret is None:
        _fail("ARBITER_JWT_SECRET is not set: tokens are signed with the gateway's secret")
    try:
        ttl_s = parse_ttl(ttl)
        now = int(datetime.now(timezone.utc).timestamp())
        token = issue_token(secret.get_secret_value(), role, sub, event, ttl_s=ttl_s, chief=chief, now_s=now)
    except ValueError as e:
        _fail(str(e))
    expires = datetime.fromtimestamp(now + ttl_s, timezone.utc).isoformat(timespec="seconds")
    err.print(f"{role} {sub}{' (chief)' if chief else ''}, events {', '.join(event) or 'none'}, "
              f"expires {expires}")
    print(token)


@app.command()
def schemas(out_dir: Path = typer.Option(Path("contracts/schemas"), help="where to write")):
    """Write the JSON Schema of every message and the AsyncAPI document of the topics."""
    from contracts.schemagen import write_all
    for p in write_all(out_dir):
        err.print(f"wrote {p}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
