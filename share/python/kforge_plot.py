#!/usr/bin/env python3
"""Pictures of a kforge campaign (`kforge plot`, `kforge report --html`; docs/cli.md).

    kforge_plot.py DIR --report REPORT.json --out OUTDIR [--format png|svg]
    kforge_plot.py DIR --report REPORT.json --html FILE [--text REPORT.txt]

REPORT.json is `kforge report DIR --json` (kforge writes it): baselines, parameter effects and the lineage come
from it, so the pictures show the report's numbers. Next to every picture the numbers it plots are written as
CSV (and all of them together as plot_data.json), so a test or a person can check them against the archive.
Uses Debian's python3-matplotlib (Agg backend: no display needed).
"""
import argparse
import base64
import html
import json
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kforge_archive as ka  # noqa: E402


def best_so_far_data(folder):
    """Per target (island): evaluation number (1..n in generation and record order) and the best time so far."""
    records = ka.load_records(folder)
    rows = []
    for target, mine in records.groupby("target", sort=True) if not records.empty else []:
        best = float("nan")
        for n, r in enumerate(mine.sort_values("generation", kind="stable").itertuples(), start=1):
            if r.status == "ok" and r.time_median_ms == r.time_median_ms and not (r.time_median_ms >= best):
                best = r.time_median_ms
            rows.append((target, n, int(r.generation), r.candidate_id, r.status, r.time_median_ms, best))
    return pd.DataFrame(rows, columns=["target", "evaluation", "generation", "candidate_id", "status",
                                       "time_ms", "best_so_far_ms"])


def status_data(folder):
    records = ka.load_records(folder)
    if records.empty:
        return pd.DataFrame(columns=["generation", "status", "count"])
    counts = records.groupby(["generation", "status"]).size().reset_index(name="count")
    return counts.astype({"generation": int, "count": int})


def operator_data(folder):
    """Share of each operator among the candidates each generation made."""
    candidates = ka.load_candidates(folder)
    if candidates.empty:
        return pd.DataFrame(columns=["generation", "op", "children", "share"])
    counts = candidates.groupby(["generation", "op"]).size().reset_index(name="children")
    counts["share"] = counts["children"] / counts.groupby("generation")["children"].transform("sum")
    return counts.astype({"generation": int, "children": int})


def generations_data(report):
    """What each generation added, from the report: how much faster the best so far became (percent), the share of
    bred children that beat their best parent, new parameter values, and the surrogate's rank correlation of
    predicted and measured times (the mean over islands; NaN without a model)."""
    rows = []
    for g in report.get("per_generation", []):
        improvement = g.get("improvement")
        models = [q["rank_correlation"] for q in g.get("model_quality", [])]
        rows.append((g["generation"], float("nan") if improvement is None else 100.0 * improvement,
                     g["improved_children"] / g["children"] if g.get("children") else float("nan"),
                     g.get("new_parameter_values", 0), sum(models) / len(models) if models else float("nan")))
    return pd.DataFrame(rows, columns=["generation", "new_best_percent", "beat_parents_share", "new_parameter_values",
                                       "model_rank_correlation"])


def effects_data(report):
    return pd.DataFrame(report.get("parameter_effects", []),
                        columns=["parameter", "value", "evaluated", "ok", "relative", "ci_low", "ci_high"])


def lineage_data(folder, report):
    """The best candidate and its ancestors (the report's lineage) with their parents, for the edges."""
    best = report.get("best") or {}
    rows = [(best.get("id"), "best", best.get("generation"), best.get("time_ms"))] if best else []
    rows += [(a["id"], a["op"], a["generation"], a["time_ms"]) for a in best.get("lineage", [])]
    frame = pd.DataFrame(rows, columns=["id", "op", "generation", "time_ms"])
    candidates = ka.load_candidates(folder)
    parents = {} if candidates.empty else dict(zip(candidates["id"], candidates["parents"], strict=True))
    frame["parents"] = [parents.get(i, "") for i in frame["id"]]
    return frame


def draw_best_so_far(ax, data, report):
    for target, mine in data.groupby("target"):
        ax.step(mine["evaluation"], mine["best_so_far_ms"], where="post", label=f"best so far ({target})")
    for b in report.get("baselines", []):
        ax.axhline(b["median_ms"], linestyle="--", linewidth=1, color="gray")
        ax.annotate(f"{b['name']} (median of {b['tasks']} tasks)", (0, b["median_ms"]), fontsize=7,
                    xytext=(2, 2), textcoords="offset points")
    ax.set(xlabel="evaluations", ylabel="time (ms)", title="best so far per island, baselines dashed")
    ax.set_yscale("log")
    ax.legend(fontsize=7)


def draw_generations(ax, data):
    ax.bar(data["generation"], data["new_best_percent"].fillna(0), color="tab:green", label="new best: % faster")
    ax.set(xlabel="generation", ylabel="best so far: % faster", title="what each generation added")
    ax.xaxis.get_major_locator().set_params(integer=True)
    share = ax.twinx()
    share.plot(data["generation"], data["beat_parents_share"], "o-", color="tab:blue",
               label="share of children that beat their parents")
    if data["model_rank_correlation"].notna().any():
        share.plot(data["generation"], data["model_rank_correlation"], "s--", color="tab:red",
                   label="model rank correlation (predicted vs measured)")
    share.set(ylabel="share / rank correlation", ylim=(-1 if (data["model_rank_correlation"] < 0).any() else 0, 1))
    lines = ax.get_legend_handles_labels()
    more = share.get_legend_handles_labels()
    share.legend(lines[0] + more[0], lines[1] + more[1], fontsize=7)


def draw_status(ax, data):
    table = data.pivot(index="generation", columns="status", values="count").fillna(0)
    bottom = None
    for status in table.columns:
        ax.bar(table.index, table[status], bottom=bottom, label=status)
        bottom = table[status] if bottom is None else bottom + table[status]
    ax.set(xlabel="generation", ylabel="records", title="status per generation")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=7)


def draw_effects(ax, data):
    shown = data.dropna(subset=["relative"]).reset_index(drop=True)
    labels = [f"{p}={v} (n={n})" for p, v, n in zip(shown.parameter, shown.value, shown.ok, strict=True)]
    low = (shown.relative - shown.ci_low).fillna(0).clip(lower=0)
    high = (shown.ci_high - shown.relative).fillna(0).clip(lower=0)
    ax.errorbar(shown.relative, range(len(shown)), xerr=[low, high], fmt="o", markersize=3)
    ax.axvline(1.0, color="gray", linewidth=1)
    ax.set_yticks(range(len(shown)), labels, fontsize=6)
    ax.set(xlabel="relative time (< 1 faster), 95% bootstrap interval", title="parameter effects")


def draw_lineage(ax, data):
    chain = data.dropna(subset=["time_ms"])
    where = {r.id: (r.generation, r.time_ms) for r in chain.itertuples()}
    for r in chain.itertuples():  # an edge from each parent to its child: crossover children have two
        for parent in filter(None, str(r.parents).split(",")):
            if parent in where:
                ax.plot([where[parent][0], r.generation], [where[parent][1], r.time_ms], "-", color="gray", lw=1)
    ax.plot(chain["generation"], chain["time_ms"], "o")
    for r in chain.itertuples():
        ax.annotate(f"{r.id[:8]} {r.op}", (r.generation, r.time_ms), fontsize=6)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set(xlabel="generation", ylabel="time (ms)", title="lineage of the best candidate")


def draw_operators(ax, data):
    table = data.pivot(index="generation", columns="op", values="share").fillna(0)
    ax.stackplot(table.index, [table[c] for c in table.columns], labels=list(table.columns))
    ax.set(xlabel="generation", ylabel="share of candidates", title="operator shares", ylim=(0, 1))
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=7)


def plot_all(folder, report, out, fmt):
    """Writes NAME.FMT and NAME.csv per picture and plot_data.json; returns the picture paths."""
    os.makedirs(out, exist_ok=True)
    data = {"best_so_far": best_so_far_data(folder), "generations": generations_data(report),
            "status": status_data(folder),
            "parameter_effects": effects_data(report), "lineage": lineage_data(folder, report),
            "operators": operator_data(folder)}
    draw = {"best_so_far": lambda ax, d: draw_best_so_far(ax, d, report), "generations": draw_generations,
            "status": draw_status,
            "parameter_effects": draw_effects, "lineage": draw_lineage, "operators": draw_operators}
    pictures = []
    for name, frame in data.items():
        frame.to_csv(os.path.join(out, name + ".csv"), index=False, float_format="%.17g")
        height = 4 if name != "parameter_effects" else max(4, 0.18 * len(frame) + 1)
        fig, ax = plt.subplots(figsize=(8, height))
        if frame.empty:
            ax.text(0.5, 0.5, "no data yet", ha="center")
        else:
            draw[name](ax, frame)
        fig.tight_layout()
        path = os.path.join(out, f"{name}.{fmt}")
        fig.savefig(path, format=fmt)
        plt.close(fig)
        pictures.append(path)
    plotted = {name: json.loads(frame.to_json(orient="records", double_precision=15)) for name, frame in data.items()}
    plotted["baselines"] = report.get("baselines", [])
    with open(os.path.join(out, "plot_data.json"), "w", encoding="utf-8") as f:
        json.dump(plotted, f, indent=1)
    return pictures


def table_html(rows, columns):
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape('' if r.get(c) is None else str(r.get(c)))}</td>"
                                    for c in columns) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def write_html(folder, report, text, path):
    """One page, nothing outside it: the tables, the text report and the pictures as data: URIs."""
    with tempfile.TemporaryDirectory() as tmp:
        pictures = plot_all(folder, report, tmp, "png")
        images = []
        for p in pictures:
            with open(p, "rb") as f:
                images.append(f'<figure><img alt="{html.escape(os.path.basename(p))}" '
                              f'src="data:image/png;base64,{base64.b64encode(f.read()).decode()}"></figure>')
    best = report.get("best") or {}
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>kforge report: "
             f"{html.escape(report.get('campaign', ''))}</title><style>body{{font-family:sans-serif}}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}</style>"
             f"</head><body><h1>kforge campaign {html.escape(report.get('campaign', ''))}</h1>"]
    headline = report.get("headline") or {}
    if headline:
        parts.append(f"<p><b>headline:</b> {html.escape(headline.get('text', ''))}</p>")
    parts.append("<h2>Generations</h2>" + table_html(report.get("per_generation", []), [
        "generation", "evaluated", "best_time_ms", "best_speedup", "best_so_far_time_ms", "best_so_far_speedup",
        "improvement", "improved_children", "children", "new_parameter_values"]))
    parts.append("<h2>Baselines</h2>" + table_html(report.get("baselines", []),
                                                   ["name", "median_ms", "min_ms", "max_ms", "tasks"]))
    if report.get("baseline_failures"):
        parts.append("<h3>Baseline failures</h3>" + table_html(report["baseline_failures"],
                                                               ["baseline", "generation", "task", "target", "reason"]))
    if best:
        speed = [{"baseline": k, "speedup": v} for k, v in (best.get("baselines") or {}).items()]
        parts.append(f"<h2>Best: {html.escape(best.get('id', ''))}</h2><p>{html.escape(best.get('params', ''))}"
                     f" on {html.escape(best.get('target', ''))}, {best.get('time_ms')} ms</p>"
                     + table_html(speed, ["baseline", "speedup"]))
    parts.append("<h2>Parameter effects</h2>" + table_html(report.get("parameter_effects", []), [
        "parameter", "value", "evaluated", "ok", "relative", "ci_low", "ci_high"]))
    parts.append("<h2>Pictures</h2>" + "".join(images))
    if text:
        parts.append(f"<h2>Text report</h2><pre>{html.escape(text)}</pre>")
    parts.append("</body></html>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(parts))


def main(argv):
    p = argparse.ArgumentParser(prog="kforge_plot.py", description=__doc__.split("\n")[0])
    p.add_argument("dir")
    p.add_argument("--report", required=True, help="kforge report DIR --json output")
    p.add_argument("--out")
    p.add_argument("--format", choices=("png", "svg"), default="png")
    p.add_argument("--html")
    p.add_argument("--text", help="the text report, shown on the HTML page")
    a = p.parse_args(argv[1:])
    with open(a.report, encoding="utf-8") as f:
        report = json.load(f)
    try:
        if a.html:
            text = open(a.text, encoding="utf-8").read() if a.text else ""
            write_html(a.dir, report, text, a.html)
            print(a.html)
        else:
            for path in plot_all(a.dir, report, a.out or "plots", a.format):
                print(path)
    except (OSError, KeyError, ValueError) as e:
        print(f"kforge plot: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
