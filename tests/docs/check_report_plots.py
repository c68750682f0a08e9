#!/usr/bin/env python3
"""Checks what tests/docs/report_plots_blocks.sh produced from one campaign (runs/gemm-plots):
the console lines, `kforge report` (text and JSON) and share/python/kforge_archive.py give the same numbers
(per generation on one speedup scale, paired for the best); the pictures exist, are valid SVG/PNG/HTML and their
CSV/JSON data are the archive's; the export holds the build facts and the measured figures at full precision.

usage: check_report_plots.py CAMPAIGN_DIR CONSOLE_AND_REPORT_LOG PYTHON_SUMMARY_LOG
"""
import base64
import csv
import html.parser
import json
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "share", "python"))
import yaml  # noqa: E402

import kforge_archive as ka  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def same(a, b, what):
    """Equal numbers; the report JSON writes 9 significant digits (relative error up to 5e-9), so compare at that
    precision."""
    if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
        assert (a is None or (isinstance(a, float) and math.isnan(a))) and \
            (b is None or (isinstance(b, float) and math.isnan(b))), f"{what}: {a!r} vs {b!r}"
        return
    assert math.isclose(float(a), float(b), rel_tol=1e-8), f"{what}: {a!r} vs {b!r}"


def check_numbers_agree(folder, report, text, summary):
    per_gen = ka.best_per_generation(folder)
    assert len(per_gen) == len(report["per_generation"]) == 2, per_gen
    scale = ka.speedup_scale(folder)
    assert set(scale) == set(report["speedup_scale"]) == {"host"}, (scale, report["speedup_scale"])
    for target, (ms, generation, tasks) in scale.items():
        entry = report["speedup_scale"][target]
        same(entry["reference_ms"], ms, f"scale {target}")
        assert (entry["generation"], entry["tasks"]) == (generation, tasks), (entry, generation, tasks)
        assert f"speedups on one scale: reference {ms:.4g} ms (generation {generation}, median of {tasks} task" in text
        assert f"speedups: reference {ms:.4g} ms (generation {generation}" in text  # the console's first line
    for row, g in zip(per_gen.itertuples(), report["per_generation"], strict=True):
        for field in ("best_time_ms", "best_speedup", "best_so_far_time_ms", "best_so_far_speedup", "improvement"):
            same(g[field], getattr(row, field), f"generation {row.generation} {field}")
        for field in ("children", "improved_children", "new_parameter_values"):
            assert g[field] == getattr(row, field), (row.generation, field, g[field], getattr(row, field))
        assert g["best_id"] == row.best_id and g["best_so_far_id"] == row.best_so_far_id
        # One story: on one scale a faster time always reads as a larger speedup.
        assert (row.best_time_ms < row.best_so_far_time_ms) == (row.best_speedup > row.best_so_far_speedup) or \
            row.best_id == row.best_so_far_id, row
        # the console line printed while the campaign ran, and the report's table row
        console = re.search(rf"^generation {row.generation} \(.*best so far ([0-9.]+) ms \(([0-9.]+)x\) "
                            rf"g\d+ {row.best_so_far_id[:8]}  generation best ([0-9.]+) ms \(([0-9.]+)x\)  "
                            rf"added: ([^(]*)  \(", text, re.M)
        assert console, f"no console line for generation {row.generation}"
        assert console.group(1) == f"{row.best_so_far_time_ms:.4g}"
        assert console.group(2) == f"{row.best_so_far_speedup:.2f}"
        assert console.group(3) == f"{row.best_time_ms:.4g}" and console.group(4) == f"{row.best_speedup:.2f}"
        added = console.group(5)
        if math.isnan(row.improvement):
            assert added.startswith("the first best"), added
        elif row.improvement > 0:
            assert added.startswith(f"a new best, {100 * row.improvement:.1f}% faster"), added
        else:
            assert added.startswith("no new best"), added
        if row.children:
            assert f"{row.improved_children} of {row.children} children beat their parents" in added, added
        assert f"{row.new_parameter_values} new parameter value" in added, added
        table = re.search(rf"^{row.generation} +\d+ +\d+ +\d+ +([0-9.]+) +([0-9.]+)x +([0-9.]+) +([0-9.]+)x +(\S+) "
                          rf"+(\S+) +(\d+) ", text, re.M)
        assert table, f"no report row for generation {row.generation}"
        assert table.group(1) == f"{row.best_time_ms:.4f}" and table.group(4) == f"{row.best_so_far_speedup:.2f}"
        assert table.group(6) == (f"{row.improved_children}/{row.children}" if row.children else "-"), table.group(6)
        assert int(table.group(7)) == row.new_parameter_values
    speedups = ka.load_speedups(folder)
    best = report["best"]
    mine = speedups[(speedups.candidate_id == best["id"]) & (speedups.target == best["target"])]
    assert set(mine.baseline) == set(best["baselines"]) == {"reference", "openblas"}, (mine, best["baselines"])
    for r in mine.itertuples():
        same(best["baselines"][r.baseline], r.speedup, f"best vs {r.baseline}")
        assert f"  vs {r.baseline}: {r.speedup:.3f}x (paired" in text, f"text report lacks vs {r.baseline}"
        assert f"    vs {r.baseline}: {r.speedup:.3g}x (paired" in summary, f"Python summary lacks vs {r.baseline}"
    same(best["speedup_vs_reference"], mine[mine.baseline == "reference"].speedup.iloc[0], "speedup_vs_reference")
    baselines = ka.baseline_summary(folder)
    assert [b["name"] for b in report["baselines"]] == list(baselines.name)
    for b, r in zip(report["baselines"], baselines.itertuples(), strict=True):
        for field in ("median_ms", "min_ms", "max_ms"):
            same(b[field], getattr(r, field), f"baseline {r.name} {field}")
        assert b["tasks"] == r.tasks
        assert f"baseline {r.name}: {r.median_ms:.4g} ms median over {r.tasks} tasks" in summary
    failures = ka.load_baseline_failures(folder)
    assert len(failures) == len(report["baseline_failures"]), (failures, report["baseline_failures"])
    effects = ka.parameter_effects(folder)
    assert len(effects) == len(report["parameter_effects"]) > 0
    for e, r in zip(report["parameter_effects"], effects.itertuples(), strict=True):
        assert (e["parameter"], e["value"], e["evaluated"], e["ok"]) == (r.parameter, r.value, r.evaluated, r.ok)
        for field in ("relative", "ci_low", "ci_high"):
            same(e[field], getattr(r, field), f"effect {r.parameter}={r.value} {field}")
    # The archive's own lessons carry the same evidence as the report: counts, effect and interval.
    stored = ka.load_lessons(folder, "parameters").set_index(["parameter", "value"])
    for e in report["parameter_effects"]:
        row = stored.loc[(e["parameter"], e["value"])]
        assert row.evaluated == e["evaluated"] and row.evaluated - row.failed == e["ok"], (e, row)
        for field in ("relative", "ci_low", "ci_high"):
            same(e[field], row[field], f"stored lesson {e['parameter']}={e['value']} {field}")
    lessons = ka.load_lessons(folder, "summary")
    assert list(lessons.text) == report["lessons_summary"] and len(lessons) > 0
    assert any("interval" in s for s in lessons.text), list(lessons.text)
    import h5py
    with h5py.File(os.path.join(folder, "gen-0000.h5"), "r") as f:  # the typed table written with the archive
        table = f["parameters"]
        assert table.dtype["MC"] == "int64" and table.dtype["LOOP_ORDER"].kind == "O", table.dtype
        assert len(table) == len(f["records"])
    tidy = ka.load_parameters(folder)
    assert str(tidy["MC"].dtype) == "int64" and set(tidy["LOOP_ORDER"]) <= {"jpi", "pji", "jip"}
    assert len(tidy.groupby("MC")) >= 1


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def check_pictures(folder, report, pictures, fmt):
    for name in ("best_so_far", "generations", "status", "parameter_effects", "lineage", "operators"):
        path = os.path.join(pictures, f"{name}.{fmt}")
        if fmt == "svg":
            assert ET.parse(path).getroot().tag.endswith("svg"), path
        else:
            with open(path, "rb") as f:
                assert f.read(8) == PNG, path
        assert os.path.getsize(os.path.join(pictures, name + ".csv")) > 0
    records = ka.load_records(folder)
    rows = read_csv(os.path.join(pictures, "best_so_far.csv"))
    assert len(rows) == len(records)
    best = math.inf
    for row, rec in zip(rows, records.itertuples(), strict=True):  # one island: the archive's order
        if rec.status == "ok":
            best = min(best, rec.time_median_ms)
        assert row["candidate_id"] == rec.candidate_id and float(row["best_so_far_ms"]) == best
    assert float(rows[-1]["best_so_far_ms"]) == report["best"]["time_ms"] or \
        math.isclose(float(rows[-1]["best_so_far_ms"]), report["best"]["time_ms"], rel_tol=1e-8)
    for row in read_csv(os.path.join(pictures, "status.csv")):
        g = report["per_generation"][int(row["generation"])]
        assert g["status_counts"][row["status"]] == int(row["count"]), row
    effects = read_csv(os.path.join(pictures, "parameter_effects.csv"))
    assert [(r["parameter"], r["value"]) for r in effects] == \
        [(e["parameter"], e["value"]) for e in report["parameter_effects"]]
    data = json.load(open(os.path.join(pictures, "plot_data.json"), encoding="utf-8"))
    assert data["baselines"] == report["baselines"] and len(data["best_so_far"]) == len(rows)
    for row in read_csv(os.path.join(pictures, "generations.csv")):  # the report's per-generation figures
        g = report["per_generation"][int(row["generation"])]
        assert int(row["new_parameter_values"]) == g["new_parameter_values"], row
        if g["improvement"] is not None:
            assert math.isclose(float(row["new_best_percent"]), 100.0 * g["improvement"], abs_tol=1e-9), row
    shares = read_csv(os.path.join(pictures, "operators.csv"))
    for g in {r["generation"] for r in shares}:
        assert math.isclose(sum(float(r["share"]) for r in shares if r["generation"] == g), 1.0)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.external = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("src", "href"):
            if key in attrs and not attrs[key].startswith("data:"):
                self.external.append(attrs[key])
        if tag == "img":
            self.images.append(attrs["src"])


def check_html(path, report):
    text = open(path, encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    page = Page()
    page.feed(text)
    assert not page.external, f"not self-contained: {page.external}"
    assert len(page.images) == 6
    for src in page.images:
        assert base64.b64decode(src.split(",", 1)[1])[:8] == PNG
    assert report["best"]["id"] in text and "Parameter effects" in text


def check_export(folder, report, out):
    best = report["best"]
    meta = yaml.safe_load(open(os.path.join(out, best["id"] + ".yaml"), encoding="utf-8"))
    assert meta["target"] == "host" and meta["params"] == best["params"]
    assert meta["build"]["problem"] == {"M": 96, "N": 80, "K": 72}, meta["build"]
    assert meta["build"]["compile_flags"] == "-O2 -march=native" and meta["build"]["compiler_version_at_export"]
    record = ka.load_records(folder, with_samples=True)
    record = record[record.candidate_id == best["id"]].iloc[0]
    assert meta["measured"]["time_median_ms"] == record.time_median_ms  # exactly: 17 significant digits
    assert meta["measured"]["samples_ms"] == record.samples_ms
    for name, s in best["baselines"].items():
        same(meta["measured"]["speedups"][name], s, f"export speedup {name}")
    assert os.path.getsize(os.path.join(out, best["id"] + ".so")) > 0  # build.sh rebuilt it
    subprocess.run(["nm", "-D", os.path.join(out, best["id"] + ".so")], check=True, capture_output=True)


def main(folder, log, summary_log):
    text = open(log, encoding="utf-8").read()
    summary = open(summary_log, encoding="utf-8").read()
    report = json.load(open(folder + "-report.json", encoding="utf-8"))
    assert report["schema_version"] == 3
    check_numbers_agree(folder, report, text, summary)
    check_pictures(folder, report, folder + "-pictures", "svg")
    check_pictures(folder, report, folder + "-png", "png")
    check_html(folder + ".html", report)
    check_export(folder, report, folder + "-best")
    print("report, JSON, Python reader, pictures, HTML and export agree")


if __name__ == "__main__":
    main(*sys.argv[1:])
