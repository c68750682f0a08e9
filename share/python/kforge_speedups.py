"""The paired speedup rule and typed parameters, for kforge_archive (docs/archive-schema.md, "Speedups").

A record is compared with the baselines timed in the same array task (the task whose manifest,
DIR/gNNNN/tasks/TTTT.yaml, lists it): speedup = that task's baseline median / the record's median. `kforge report`
(scheduler/report/src/report_baselines.cpp) and the console use the same rule, so all three give the same numbers.
"""
import glob
import math
import os
import re

import numpy as np
import pandas as pd
import yaml

import kforge_archive as ka


def _campaign_dir(path):
    path = os.fspath(path)
    if os.path.isdir(path):
        return path
    if os.path.basename(path) == "campaign.h5":
        return os.path.dirname(os.path.abspath(path))
    raise ValueError(f"{path}: paired speedups need a campaign folder (or its campaign.h5): they read its manifests")


def _manifests(folder):
    """Every generation task's manifest: (generation, task, target, candidate ids, baselines, compile_only)."""
    out = []
    for gen_dir in sorted(glob.glob(os.path.join(folder, "g[0-9][0-9][0-9][0-9]"))):
        generation = int(os.path.basename(gen_dir)[1:])
        task = 0
        while os.path.exists(os.path.join(gen_dir, "tasks", f"{task:04d}.yaml")):
            try:
                with open(os.path.join(gen_dir, "tasks", f"{task:04d}.yaml"), encoding="utf-8") as f:
                    m = yaml.safe_load(f)
                settings = m.get("settings") or {}
                out.append((generation, int(m["task"]), str(m["target"]), [c["id"] for c in m.get("candidates") or []],
                            list(settings.get("baselines") or []), bool(settings.get("compile_only", False))))
            except (OSError, yaml.YAMLError, KeyError, TypeError):
                pass  # unreadable: its records stay unpaired, as in the C++ reader
            task += 1
    return out


def _timings(folder):
    """{(generation, task): {baseline: ms}} of positive, finite timings; and {(generation, task): names with a row}."""
    baselines = ka.load_baselines(folder)
    timed, present = {}, {}
    if baselines.empty:
        return timed, present
    baselines["generation"] = baselines["generation_file"].map(lambda label: int(re.search(r"(\d+)", label).group(1)))
    for row in baselines.itertuples():
        present.setdefault((row.generation, row.task), set()).add(row.name)
        if np.isfinite(row.time_median_ms) and row.time_median_ms > 0:
            timed.setdefault((row.generation, row.task), {})[row.name] = row.time_median_ms
    return timed, present


def load_speedups(path):
    """One row per ok record and baseline: generation, island, target, candidate_id, task, baseline, baseline_ms,
    time_median_ms, speedup (= baseline_ms / time_median_ms). Records whose manifest is gone keep their stored
    reference speedup (the evaluator computed it in the same task) with task -1."""
    folder = _campaign_dir(path)
    records = ka.load_records(folder)
    columns = ["generation", "island", "target", "candidate_id", "task", "baseline", "baseline_ms", "time_median_ms",
               "speedup"]
    if records.empty:
        return pd.DataFrame(columns=columns)
    task_of = {}
    for generation, task, target, ids, _, _ in _manifests(folder):
        for cid in ids:
            task_of[(generation, cid, target)] = task
    timed, _ = _timings(folder)
    rows = []
    for r in records.itertuples():
        if r.status != "ok" or not (r.time_median_ms > 0):
            continue
        task = task_of.get((int(r.generation), r.candidate_id, r.target))
        if task is None:
            if np.isfinite(r.speedup):
                rows.append((r.generation, r.island, r.target, r.candidate_id, -1, "reference",
                             r.time_median_ms * r.speedup, r.time_median_ms, r.speedup))
            continue
        for name, ms in sorted(timed.get((int(r.generation), task), {}).items()):
            rows.append((r.generation, r.island, r.target, r.candidate_id, task, name, ms, r.time_median_ms,
                         ms / r.time_median_ms))
    return pd.DataFrame(rows, columns=columns)


def baseline_summary(path):
    """Each baseline over the tasks that timed it: name, median_ms, min_ms, max_ms, tasks."""
    timed, _ = _timings(_campaign_dir(path))
    by_name = {}
    for names in timed.values():
        for name, ms in names.items():
            by_name.setdefault(name, []).append(ms)
    rows = [(name, float(np.median(v)), min(v), max(v), len(v)) for name, v in sorted(by_name.items())]
    return pd.DataFrame(rows, columns=["name", "median_ms", "min_ms", "max_ms", "tasks"])


def load_baseline_failures(path):
    """Tasks that were to time a baseline and hold no usable timing of it: generation, task, target, baseline,
    reason (the evaluator's "speedup unavailable: ..." evidence when a record of the task carries it)."""
    folder = _campaign_dir(path)
    timed, present = _timings(folder)
    records = ka.load_records(folder, with_text=True)
    rows = []
    for generation, task, target, ids, names, compile_only in _manifests(folder):
        if compile_only or not ids:
            continue
        for name in names:
            if name in timed.get((generation, task), {}):
                continue
            reason = None
            mine = records[(records.generation == generation) & records.candidate_id.isin(ids) &
                           (records.target == target)] if not records.empty else records
            for evidence in (mine["evidence"] if not mine.empty else []):
                at = evidence.find("speedup unavailable: ")
                if at >= 0:
                    reason = evidence[at + len("speedup unavailable: "):].split("\n", 1)[0]
                    break
            if reason is None:
                reason = ("timed, but its time is not a positive number" if name in present.get((generation, task), ())
                          else "not in the task's timings (the backend could not time it on this target)")
            rows.append((generation, task, target, name, reason))
    return pd.DataFrame(rows, columns=["generation", "task", "target", "baseline", "reason"])


def speedup_scale(path):
    """The per-generation speedups' one scale, per target: the median of the reference baseline's timings over the
    tasks of the first generation that timed it (target -> (reference_ms, generation, tasks)), as `kforge report`'s
    speedup_scale. Timings whose task has no readable manifest are left out."""
    folder = _campaign_dir(path)
    timed, _ = _timings(folder)
    per_generation = {}
    for generation, task, target, _, _, _ in _manifests(folder):
        ms = timed.get((generation, task), {}).get("reference")
        if ms is not None:
            per_generation.setdefault(generation, {}).setdefault(target, []).append(ms)
    scale = {}
    for generation in sorted(per_generation):
        for target, times in per_generation[generation].items():
            scale.setdefault(target, (_median(times), generation, len(times)))
    return scale


def _bred_children(folder):
    """{generation: (children, improved)} of bred operators (not init, not prior) from /operator_weights."""
    weights = ka.load_operator_weights(folder)
    out = {}
    for w in weights.itertuples() if not weights.empty else []:
        if w.op in ("init", "prior"):
            continue
        g = int(re.search(r"(\d+)", w.generation_file).group(1))
        children, improved = out.get(g, (0, 0))
        out[g] = (children + int(w.children), improved + int(w.improved))
    return out


def _new_parameter_values(folder):
    """{generation: parameter values (name=value) its candidates tried that no earlier generation had}."""
    candidates = ka.load_candidates(folder)
    by_generation = {}
    for c in candidates.itertuples() if not candidates.empty else []:
        g = int(re.search(r"(\d+)", c.generation_file).group(1))
        by_generation.setdefault(g, set()).update(f"{n}={v}" for n, v in _genome_texts(c.params))
    seen, out = set(), {}
    for g in sorted(by_generation):
        out[g] = len(by_generation[g] - seen)
        seen |= by_generation[g]
    return out


def best_per_generation(path):
    """Per generation, as `kforge report` prints it: its own best ok record (best_time_ms, best_speedup, best_id),
    the best of generations 0..g (best_so_far_time_ms, best_so_far_speedup, best_so_far_id), speedups on one scale
    (speedup_scale: reference time / time, so a faster time always reads as a larger speedup), and what the
    generation added: improvement (fraction the best so far dropped; 0 none; NaN for the first), children and
    improved_children (bred children that beat their best parent), new_parameter_values."""
    folder = _campaign_dir(path)
    records = ka.load_records(folder)
    scale = speedup_scale(folder)
    bred, new_values = _bred_children(folder), _new_parameter_values(folder)
    rows, so_far = [], None
    for generation in sorted(records["generation"].unique()) if not records.empty else []:
        mine = records[(records.generation == generation) & (records.status == "ok") &
                       np.isfinite(records.time_median_ms)]
        before = so_far.time_median_ms if so_far is not None else np.nan
        own = None
        for r in mine.itertuples():  # the first of equal times, as the C++ report
            if own is None or r.time_median_ms < own.time_median_ms:
                own = r
            if so_far is None or r.time_median_ms < so_far.time_median_ms:
                so_far = r

        def figures(r):
            if r is None:
                return [np.nan, np.nan, ""]
            reference = scale.get(r.target, (np.nan,))[0]
            return [r.time_median_ms, reference / r.time_median_ms, r.candidate_id]

        improvement = np.nan
        if so_far is not None and np.isfinite(before):
            improvement = max(0.0, (before - so_far.time_median_ms) / before)
        children, improved = bred.get(int(generation), (0, 0))
        rows.append([int(generation)] + figures(own) + figures(so_far) +
                    [improvement, children, improved, new_values.get(int(generation), 0)])
    return pd.DataFrame(rows, columns=["generation", "best_time_ms", "best_speedup", "best_id", "best_so_far_time_ms",
                                       "best_so_far_speedup", "best_so_far_id", "improvement", "children",
                                       "improved_children", "new_parameter_values"])


def parse_params(text):
    """Canonical genome text (KC=256;MC=64;order="ikj") -> {name: int | float | str | bool}."""
    out, pos = {}, 0
    while pos < len(text):
        eq = text.index("=", pos)
        name, pos = text[pos:eq], eq + 1
        if text.startswith('"', pos):
            value, i = [], pos + 1
            while text[i] != '"':
                if text[i] == "\\":
                    i += 1
                value.append(text[i])
                i += 1
            out[name], pos = "".join(value), i + 1
        else:
            end = text.find(";", pos)
            end = len(text) if end < 0 else end
            raw, pos = text[pos:end], end
            if raw in ("true", "false"):
                out[name] = raw == "true"
            elif any(c in raw for c in ".eE") or raw in ("inf", "-inf", "nan"):
                out[name] = float(raw)
            else:
                out[name] = int(raw)
        if pos < len(text) and text[pos] == ";":
            pos += 1
    return out


def load_parameters(path):
    """The records with one typed column per parameter of the space (integers as int64, floats as float64,
    strings unquoted), after the record columns candidate_id, generation, island, target, status, time_median_ms,
    speedup, params; a parameter whose name clashes with a record column gets the prefix "param_".
    Read from each generation file's typed /parameters table; files written before it existed are parsed from
    the canonical params text, with the same types."""
    records = ka.load_records(path)
    base = ["candidate_id", "generation", "island", "target", "status", "time_median_ms", "speedup", "params"]
    if records.empty:
        return pd.DataFrame(columns=base)
    stored = ka._load(path, "parameters")  # aligned with /records, file by file
    aligned = (not stored.empty and len(stored) == len(records) and
               list(stored["generation_file"]) == list(records["generation_file"]))
    frame = records[base].copy()
    if aligned:
        for name in [c for c in stored.columns if c != "generation_file"]:
            frame[name if name not in frame.columns else "param_" + name] = stored[name].values
        return frame
    parsed = [parse_params(p) for p in records["params"]]
    for name in sorted({n for p in parsed for n in p}):
        column = name if name not in frame.columns else "param_" + name
        values = [p.get(name) for p in parsed]
        kinds = {type(v) for v in values if v is not None}
        if kinds == {int} and None not in values:
            frame[column] = pd.Series(values, dtype="int64")
        elif kinds == {float} and None not in values:
            frame[column] = pd.Series(values, dtype="float64")
        else:  # mixed or missing: the canonical text, as the /parameters table stores it
            frame[column] = pd.Series(["" if v is None else v if isinstance(v, str) else str(v) for v in values],
                                      dtype="object")
    return frame


_MASK = (1 << 64) - 1
_GOLDEN_GAMMA = 0x9E3779B97F4A7C15
EFFECT_SEED, EFFECT_RESAMPLES = 12, 2000  # scheduler/report/src/report_effects.cpp


def _finalise(z):
    """SplitMix64's finaliser on a uint64 array (jobs/include/kforge/jobs/seed.hpp); numpy uint64 wraps."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def bootstrap_interval(ratios, seed=EFFECT_SEED, resamples=EFFECT_RESAMPLES, confidence=0.95):
    """(geometric mean, low, high) exactly as kforge's C++ bootstrap (scheduler/learning/src/bootstrap_interval.cpp):
    the same SplitMix64 draws, the same summation order and type-7 quantiles, so both give the same digits."""
    logs = [math.log(r) for r in ratios]
    if not logs:
        return (np.nan, np.nan, np.nan)
    total = 0.0
    for value in logs:
        total += value
    n = len(logs)
    estimate = math.exp(total / n)
    if n < 2:
        return (estimate, np.nan, np.nan)
    with np.errstate(over="ignore"):
        state = int(_finalise(np.array([(seed + _GOLDEN_GAMMA) & _MASK], dtype=np.uint64))[0])
        steps = np.arange(1, resamples * n + 1, dtype=np.uint64) * np.uint64(_GOLDEN_GAMMA) + np.uint64(state)
        high32 = _finalise(steps) >> np.uint64(32)
        index = ((high32 * np.uint64(n)) >> np.uint64(32)).astype(np.int64).reshape(resamples, n)
    values = np.array(logs)
    sums = np.zeros(resamples)
    for i in range(n):  # left to right, as the C++ loop adds
        sums += values[index[:, i]]
    means = np.sort(sums / n)

    def quantile(q):
        h = q * (len(means) - 1)
        lo = math.floor(h)
        if lo + 1 >= len(means):
            return means[-1]
        return means[lo] + (h - lo) * (means[lo + 1] - means[lo])

    tail = (1.0 - confidence) / 2.0
    return (estimate, math.exp(quantile(tail)), math.exp(quantile(1.0 - tail)))


def _median(values):
    v = sorted(values)
    k = len(v)
    return v[k // 2] if k % 2 else 0.5 * (v[k // 2 - 1] + v[k // 2])


def parameter_effects(path):
    """Every parameter value's effect on time with its evidence, the same numbers as `kforge report`'s
    "parameter effects": evaluated, ok (the sample count), relative (geometric mean of time / the target's median
    ok time; < 1 faster) and its 95% bootstrap interval ci_low..ci_high (NaN below 2 ok runs).
    Sort by ci_high to put values that are surely fast first: a single run has no interval and sorts last."""
    records = ka.load_records(path)
    columns = ["parameter", "value", "evaluated", "ok", "relative", "ci_low", "ci_high"]
    if records.empty:
        return pd.DataFrame(columns=columns)
    ok = (records.status == "ok") & np.isfinite(records.time_median_ms)
    target_median = {t: _median(list(g.time_median_ms)) for t, g in records[ok].groupby("target")}
    values = {}
    for r, good in zip(records.itertuples(), ok, strict=True):
        try:
            params = _genome_texts(r.params)
        except (ValueError, IndexError):
            continue
        for name, text in params:
            entry = values.setdefault((name, text), [0, []])
            entry[0] += 1
            if good and target_median.get(r.target, 0) > 0:
                entry[1].append(r.time_median_ms / target_median[r.target])
    rows = []
    by_name = sorted(values.items(), key=lambda kv: (kv[0][0].encode(), kv[0][1].encode()))
    for (name, text), (evaluated, relative) in by_name:
        rows.append((name, text, evaluated, len(relative)) + bootstrap_interval(relative))
    return pd.DataFrame(rows, columns=columns)


def _genome_texts(text):
    """[(name, value text as the genome writes it)] of canonical genome text."""
    out, pos = [], 0
    while pos < len(text):
        eq = text.index("=", pos)
        name, pos = text[pos:eq], eq + 1
        if text.startswith('"', pos):
            i = pos + 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            end = i + 1
        else:
            end = text.find(";", pos)
            end = len(text) if end < 0 else end
        out.append((name, text[pos:end]))
        pos = end + 1 if end < len(text) and text[end] == ";" else end
    return out
