#!/usr/bin/env python3
"""Read kforge HDF5 archives (campaign.h5, gen-NNNN.h5, shard files) into pandas.

The layout is documented in docs/archive-schema.md. Typical use:

    import kforge_archive as ka
    df = ka.load_records("/scratch/me/campaigns/gemm")      # every generation's records
    df[df.status == "ok"].groupby("target").time_median_ms.min()
    df.attrs["units"]["time_median_ms"]                      # -> "ms"

From a shell:  python3 kforge_archive.py CAMPAIGN_DIR   (prints a summary)

Every file is checked before a table of it is read (kforge_verify.py): a damaged file, one copied from another
campaign, one put in another generation's place or changed after it was sealed raises ArchiveError (a ValueError)
whose message starts with the file's path.
"""
import os
import sys

import h5py
import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kforge_verify  # noqa: E402
from kforge_verify import ArchiveError, campaign_id_of, check_any, check_file  # noqa: E402

__all__ = ["ArchiveError", "load_records", "load_baselines", "load_population", "load_candidates", "load_confirmation",
           "load_confirmation_samples", "load_parameters", "load_speedups", "baseline_summary",
           "load_baseline_failures", "best_per_generation", "parameter_effects", "provenance", "summary"]


_text = kforge_verify._text  # HDF5 strings come back from h5py as bytes; kforge writes UTF-8


def _archive_path(path):
    """A campaign folder means its campaign.h5; a file path is used as given."""
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, "campaign.h5")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such kforge archive file")
    return os.path.abspath(path)


def _data_groups(h5file, path):
    """(file label, group holding the tables) for every file with data behind h5file.

    A campaign index is followed through its external links /generations/gNNNN; HDF5 resolves the
    relative link targets against campaign.h5's own folder, so the caller's working directory does not matter.
    """
    kind = _text(h5file.attrs.get("kind", b""))
    if kind != "campaign":
        return [(os.path.basename(path), h5file)]
    generations = h5file.get("generations")
    if generations is None:
        return []
    groups = []
    for name in sorted(generations):
        link = generations.get(name, getlink=True)
        label = link.filename if isinstance(link, h5py.ExternalLink) else name
        groups.append((label, generations[name]))
    return groups


def _table(dataset):
    """A compound dataset as a DataFrame with str columns instead of bytes (zero rows stay zero rows)."""
    rows = dataset[()]
    frame = pd.DataFrame({name: rows[name] for name in rows.dtype.names})
    for name in rows.dtype.names:
        if rows.dtype[name].kind == "O":
            frame[name] = frame[name].map(_text)
    frame.attrs["units"] = {key[: -len(".units")]: _text(value)
                            for key, value in dataset.attrs.items() if key.endswith(".units")}
    return frame


def _string_column(dataset):
    return [_text(v) for v in dataset[()]]


def _load(path, table, extra=None):
    path = _archive_path(path)
    check_any(path)
    frames, units = [], {}
    with h5py.File(path, "r") as f:
        for label, group in _data_groups(f, path):
            if table not in group:
                continue
            frame = _table(group[table])
            units.update(frame.attrs["units"])
            if extra is not None:
                extra(group, frame)
            frame["generation_file"] = label
            frames.append(frame)
    if not frames:
        return pd.DataFrame()
    out = pd.concat(frames, ignore_index=True)
    out.attrs["units"] = units
    return out


def _load_strings(path, dataset, column):
    """A dataset of bare strings as a one-column DataFrame, per generation file."""
    path = _archive_path(path)
    check_any(path)
    frames = []
    with h5py.File(path, "r") as f:
        for label, group in _data_groups(f, path):
            if dataset in group:
                frames.append(pd.DataFrame({column: _string_column(group[dataset]), "generation_file": label}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({column: [], "generation_file": []})


def _interquartile_spread(samples, frame):
    """(q3 - q1) / median of each row's samples (numpy's default quantiles, as jobs::interquartile_spread_rel)."""
    out = []
    for o, n in zip(frame["sample_offset"], frame["sample_length"], strict=True):
        s = samples[o:o + n]
        q1, median, q3 = np.quantile(s, [0.25, 0.5, 0.75]) if n >= 2 else (np.nan, np.nan, np.nan)
        out.append((q3 - q1) / median if median > 0 else np.nan)
    return out


def load_records(path, with_text=False, with_samples=False):
    """All evaluation records (one row per candidate per target) of a campaign folder or archive file.

    with_text adds the evidence, source, failed_case and ptx columns (the last two where the file has them);
    with_samples adds samples_ms (a list of ms per row).
    """
    def add_columns(group, frame):
        if "timing_noisy" not in frame:  # added later: older files have none, and their records were not judged
            frame["timing_noisy"] = 0
        frame["timing_noisy"] = frame["timing_noisy"].astype(bool)
        if "time_spread_iqr" not in frame:  # added with issue 32: computed from the samples, as the C++ reader does
            frame["time_spread_iqr"] = _interquartile_spread(group["samples"][()], frame)
        if with_text:
            frame["evidence"] = _string_column(group["evidence"])
            frame["source"] = _string_column(group["sources"])
            if "failed_cases" in group:  # added later: older files have none
                frame["failed_case"] = _string_column(group["failed_cases"])
            if "ptx" in group:  # cuda records' PTX; added later still
                frame["ptx"] = _string_column(group["ptx"])
        if with_samples:
            samples = group["samples"][()]
            frame["samples_ms"] = [samples[o:o + n].tolist()
                                   for o, n in zip(frame["sample_offset"], frame["sample_length"], strict=True)]

    return _load(path, "records", add_columns)


def load_metrics(path):
    """Engine figures in long form (one row per record and figure: record, candidate_id, name, unit, value).

    Kernel campaigns have none (an empty table); files written before /metrics existed have none either.
    """
    return _load(path, "metrics")


def engine_metrics(path):
    """One row per engine record with its serving figures as columns (output_tokens_per_s, ttft_p99_ms, ...,
    op_share.mlp), joined with the record's status, time and params; units in .attrs["units"]."""
    metrics = load_metrics(path)
    if metrics.empty:
        return pd.DataFrame()
    wide = metrics.pivot_table(index=["generation_file", "record"], columns="name", values="value", aggfunc="first")
    units = dict(zip(metrics["name"], metrics["unit"], strict=True))
    records = load_records(path)
    records["record"] = records.groupby("generation_file").cumcount()
    keep = ["generation_file", "record", "candidate_id", "generation", "target", "status", "time_median_ms", "params"]
    out = records[keep].merge(wide.reset_index(), on=["generation_file", "record"], how="inner")
    out = out.sort_values("output_tokens_per_s", ascending=False, ignore_index=True)
    out.attrs["units"] = units
    return out


def load_baselines(path):
    """Baseline timings (name, time_median_ms, ...) measured beside the candidates."""
    return _load(path, "baselines")


def load_population(path):
    """Survivors of selection per generation file: island, candidate_id, fitness_ms."""
    return _load(path, "population")


def load_candidates(path):
    """Every candidate of every generation, with its source text."""
    def add_source(group, frame):
        frame["source"] = _string_column(group["candidate_sources"])

    return _load(path, "candidates", add_source)


def load_operator_weights(path):
    """Per generation and island: each operator's planned share of the offspring (weight) and what its
    children did (children, ok, improved)."""
    return _load(path, "operator_weights")


def load_search_model(path):
    """Surrogate campaigns, per generation and island: how well the model foresaw its proposals (target,
    rank_correlation of predicted and measured log times, predictions behind it). Empty for other campaigns."""
    return _load(path, "search_model")


def _latest(frame):
    if frame.empty:
        return frame
    return frame[frame["generation_file"] == frame["generation_file"].iloc[-1]].reset_index(drop=True)


def load_lessons(path, table="parameters", latest=True):
    """Lessons (cumulative per generation file): table is "parameters" (effect of each parameter value on time
    and failure), "operators" (children, ok, improved), "failures" (status, cause, count, example_id) or
    "summary" (the sentences agents read: one row per sentence, column "text").
    latest=True keeps only the newest generation file's rows: everything learnt so far."""
    if table not in ("parameters", "operators", "failures", "summary"):
        raise ValueError(f"table must be parameters, operators, failures or summary, not {table!r}")
    if table == "summary":
        frame = _load_strings(path, "lessons/summary", "text")
        return _latest(frame) if latest else frame
    frame = _load(path, "lessons/" + table)
    return _latest(frame) if latest else frame


def load_validation(path, latest=True):
    """The campaign's validation set: inputs/shapes that caught a wrong candidate (text, added_generation,
    caught_id, caught_status); every later candidate is checked on them."""
    frame = _load(path, "validation")
    return _latest(frame) if latest else frame


def _confirmation_path(path):
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, "confirmation.h5")
    elif os.path.basename(path) == "campaign.h5":
        path = os.path.join(os.path.dirname(path), "confirmation.h5")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no confirmation (run: kforge confirm DIR --top K)")
    path = os.path.abspath(path)
    check_file(path, "confirmation", campaign_id=campaign_id_of(os.path.dirname(path)))
    return path


def _load_confirmation_table(path, table):
    path = _confirmation_path(path)
    with h5py.File(path, "r") as f:
        group = f["confirmation"]
        frame = _table(group[table])
        frame.attrs["confirmation"] = {key: _text(value) for key, value in group.attrs.items()}
        frame.attrs["confirmation_schema_version"] = int(f.attrs["confirmation_schema_version"])
    return frame


def load_confirmation(path):
    """The confirmed speedups of a campaign folder (its confirmation.h5, written by `kforge confirm`).

    One row per candidate and baseline: target, rank, candidate_id, baseline, rounds, speedup (geometric mean of
    the per-round ratios baseline_ms / candidate_ms), ci_low, ci_high (bootstrap interval), verdict ("faster",
    "slower", "not_faster"). attrs["confirmation"] holds top, rounds, confidence, resamples, seed, generations.
    """
    return _load_confirmation_table(path, "speedups")


def load_confirmation_samples(path):
    """The paired samples behind load_confirmation: one row per round and subject (a candidate id, or
    "baseline:NAME"), with its median time_ms that round (NaN when the round produced none)."""
    return _load_confirmation_table(path, "samples")


def provenance(path):
    """Root attributes of an archive file: creator, version, schema_version, created, config_hash, host, ..."""
    path = _archive_path(path)
    check_any(path)
    with h5py.File(path, "r") as f:
        return {key: _text(value) for key, value in f.attrs.items()}


def summary(path):
    """A few lines a person reads first: what the archive is, and how its records turned out."""
    info = provenance(path)
    lines = [f"{_archive_path(path)}: kforge {info.get('kind', '?')} file, campaign {info.get('campaign', '?')!r}"]
    lines.append("  " + ", ".join(f"{k}: {info[k]}" for k in sorted(info) if k not in ("kind", "campaign")))
    records = load_records(path)
    lines.append(f"records: {len(records)}")
    if records.empty:
        return "\n".join(lines)
    for label, count in records.groupby("generation_file").size().items():
        lines.append(f"  {label}: {count} records")
    for status, count in records["status"].value_counts().items():
        lines.append(f"  status {status}: {count}")
    lines.append(f"  timing noisy: {int(records['timing_noisy'].sum())}/{len(records)}")
    ok = records[records["status"] == "ok"].dropna(subset=["time_median_ms"])
    campaign = os.path.isdir(path) or os.path.basename(os.fspath(path)) == "campaign.h5"
    paired = load_speedups(path) if campaign else pd.DataFrame()
    for target, best in ok.sort_values("time_median_ms").groupby("target").head(1).set_index("target").iterrows():
        lines.append(f"  best on {target}: {best.candidate_id} {best.time_median_ms:.4g} ms {best.params}")
        if paired.empty:
            continue
        mine = paired[(paired.candidate_id == best.candidate_id) & (paired.target == target)]
        for _, row in mine.iterrows():
            lines.append(f"    vs {row.baseline}: {row.speedup:.3g}x (paired: timed in the same task)")
    if campaign:
        for _, b in baseline_summary(path).iterrows():
            lines.append(f"  baseline {b['name']}: {b.median_ms:.4g} ms median over {b.tasks} tasks "
                         f"(range {b.min_ms:.4g}-{b.max_ms:.4g} ms)")
        for _, f in load_baseline_failures(path).iterrows():
            lines.append(f"  baseline {f.baseline} FAILED in generation {f.generation} task {f.task}: {f.reason}")
    return "\n".join(lines)


def _speedups():
    import kforge_speedups  # here, not at the top: it reads the archive through this module
    return kforge_speedups


def load_speedups(path):
    """Paired speedups (docs/archive-schema.md, "Speedups"): one row per ok record and baseline its task timed."""
    return _speedups().load_speedups(path)


def baseline_summary(path):
    """Each baseline's median task timing with its range (min_ms, max_ms) and the number of tasks."""
    return _speedups().baseline_summary(path)


def load_baseline_failures(path):
    """Tasks that were to time a baseline and hold no usable timing of it, with the reason."""
    return _speedups().load_baseline_failures(path)


def best_per_generation(path):
    """Per generation: its own best and the best so far on one speedup scale, and what it added (as kforge report)."""
    return _speedups().best_per_generation(path)


def speedup_scale(path):
    """The per-generation speedups' reference time per target: {target: (reference_ms, generation, tasks)}."""
    return _speedups().speedup_scale(path)


def parameter_effects(path):
    """Each parameter value's effect with its sample count and 95% bootstrap interval (as `kforge report`)."""
    return _speedups().parameter_effects(path)


def load_parameters(path):
    """The records as a tidy DataFrame with one typed column per parameter (df.groupby("MC") works)."""
    return _speedups().load_parameters(path)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(f"usage: {os.path.basename(argv[0])} CAMPAIGN_DIR|FILE.h5", file=sys.stderr)
        return 2
    try:
        print(summary(argv[1]))
    except (OSError, KeyError, ArchiveError) as e:
        print(f"kforge_archive: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
