"""The load test's plot: latency percentiles against offered load, system and baseline."""
from __future__ import annotations

from pathlib import Path


def plot_curves(system: list[dict], baseline: list[dict], path: Path, title: str) -> None:
    """Write a PNG of two panels against offered load (moves/s): p50/p95/p99 latency (ms, log
    scale; solid lines the system, dashed the bare-Kafka baseline) and the moves per second
    achieved (with the offered load as a dotted diagonal). Rows: ``target_moves_per_s``,
    ``moves_per_s``, ``p50``, ``p95``, ``p99``; rows without a latency are skipped. A third
    panel, below, shows the system's p50 and p99 per second of the highest offered load over
    its duration (the row's ``timeline``, :func:`loadtests.helpers.timeline`), when it has
    one: a tail made by a few stalls shows as spikes, one made by a slow system everywhere."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    top_row = max(system, key=lambda r: r["target_moves_per_s"], default=None)
    windows = (top_row or {}).get("timeline") or []
    if windows:
        fig = plt.figure(figsize=(12, 8), dpi=110)
        grid = fig.add_gridspec(2, 2, width_ratios=[3, 2], height_ratios=[3, 2])
        ax, ax2, ax3 = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1]), fig.add_subplot(grid[1, :])
        for q, colour in (("p50", "tab:blue"), ("p99", "tab:red")):
            pts = [(w["t_s"], w[q]) for w in windows if w[q] is not None]
            if pts:
                ax3.plot(*zip(*pts), color=colour, linewidth=1, label=f"system {q}")
        ax3.set_xlabel(f"seconds into the {top_row['target_moves_per_s']:g} moves/s step (by send time)")
        ax3.set_ylabel("latency per second (ms)")
        ax3.grid(True, alpha=0.3)
        ax3.legend(fontsize=8)
    else:
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5), dpi=110,
                                      gridspec_kw={"width_ratios": [3, 2]})
    colours = {"p50": "tab:blue", "p95": "tab:orange", "p99": "tab:red"}
    for rows, style, who in ((system, "-", "system"), (baseline, "--", "baseline")):
        for q, colour in colours.items():
            pts = [(r["target_moves_per_s"], r[q]) for r in rows if r.get(q)]
            if pts:
                xs, ys = zip(*sorted(pts))
                ax.plot(xs, ys, style, marker="o", color=colour, label=f"{who} {q}")
        pts = sorted((r["target_moves_per_s"], r["moves_per_s"]) for r in rows)
        if pts:
            xs, ys = zip(*pts)
            ax2.plot(xs, ys, style, marker="o", color="tab:green" if who == "system" else "tab:gray",
                     label=who)
    ax.set_yscale("log")
    ax.set_xlabel("offered load (moves/s)")
    ax.set_ylabel("latency submit -> decision (ms, log)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    top = max([r["target_moves_per_s"] for r in system + baseline] or [1])
    ax2.plot([0, top], [0, top], ":", color="black", linewidth=0.8, label="offered")
    ax2.set_xlabel("offered load (moves/s)")
    ax2.set_ylabel("achieved (moves/s)")
    ax2.grid(True, alpha=0.3)
    ax2.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
