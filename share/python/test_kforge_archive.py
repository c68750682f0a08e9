#!/usr/bin/env python3
"""Checks kforge_archive.py against a campaign written by tests/jobs/write_sample_archive (3 + 5 records).

Usage: /usr/bin/python3 test_kforge_archive.py CAMPAIGN_DIR    (exit status 1 on the first failed check)
"""
import math
import os
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kforge_archive as ka  # noqa: E402

STATUSES = ["ok", "compile_error", "resource_reject", "wrong_result", "crash", "timeout", "cheat_detected",
            "infra_error"]
RECORD_COLUMNS = {
    "candidate_id", "family", "backend", "params", "parents", "op", "generation", "island", "target", "status",
    "status_code", "time_median_ms", "time_min_ms", "time_spread_rel", "sample_count", "sample_offset",
    "sample_length", "speedup", "max_abs_error", "max_rel_error", "compile_ms", "registers", "shared_bytes",
    "spill_bytes", "host", "gpu_model", "slurm_job_id", "slurm_array_task", "rank", "evaluated_at", "harness_ms",
    "timing_noisy", "time_spread_iqr", "generation_file"}


def check_records(campaign):
    df = ka.load_records(campaign)
    assert set(df.columns) == RECORD_COLUMNS, sorted(set(df.columns) ^ RECORD_COLUMNS)
    assert len(df) == 8, len(df)
    assert df.groupby("generation_file").size().to_dict() == {"gen-0000.h5": 3, "gen-0001.h5": 5}
    assert all(isinstance(s, str) for s in df["status"]), df["status"].tolist()
    assert [STATUSES[c] for c in df["status_code"]] == df["status"].tolist()
    assert all(isinstance(i, str) and len(i) == 32 for i in df["candidate_id"])
    assert df["generation"].tolist() == [0, 0, 0, 1, 1, 1, 1, 1]
    assert math.isnan(df["time_median_ms"][1]) and df["time_median_ms"][0] == 1.25
    assert df["parents"][1] == "" and df["parents"][0].count(",") == 1
    units = df.attrs["units"]
    assert units["time_median_ms"] == "ms" and units["speedup"] == "1" and units["shared_bytes"] == "bytes", units
    assert units["compile_ms"] == "ms" and units["harness_ms"] == "ms" and units["max_abs_error"] == "1", units


def check_timing_noisy(campaign):
    df = ka.load_records(campaign)
    # archive_samples.cpp flags sample records 0 and 3 (i % 3 == 0); gen-0000 holds 0..2, gen-0001 holds 0..4
    assert df["timing_noisy"].tolist() == [True, False, False, True, False, False, True, False], df["timing_noisy"]
    with h5py.File(os.path.join(campaign, "gen-0000.h5"), "r") as f:
        assert f["records"].dtype["timing_noisy"] == "u1" and f["records"].attrs["timing_noisy.units"] == "1"


def check_file_without_timing_noisy(campaign):
    """A file written before the member existed: the column is there, all False."""
    import shutil
    import tempfile

    import numpy.lib.recfunctions as rfn
    with tempfile.TemporaryDirectory() as tmp:
        old = os.path.join(tmp, "gen-0000.h5")
        shutil.copy(os.path.join(campaign, "gen-0000.h5"), old)
        with h5py.File(old, "r+") as f:
            rows = rfn.drop_fields(f["records"][()], ["timing_noisy", "time_spread_iqr"], usemask=False)
            attrs = dict(f["records"].attrs)
            del f["records"]
            f.create_dataset("records", data=rows)
            f["records"].attrs.update(attrs)
            for name in ("content_sha256", "campaign_id"):  # a schema-1 writer wrote neither
                del f.attrs[name]
            f.attrs.modify("schema_version", 1)
        df = ka.load_records(old)
        assert len(df) == 3 and df["timing_noisy"].tolist() == [False, False, False], df["timing_noisy"]
        # computed from the samples instead (archive_samples.cpp's hold a NaN, so none is defined)
        assert "time_spread_iqr" in df and df["time_spread_iqr"].isna().all(), df["time_spread_iqr"]


def check_text_and_samples(campaign):
    df = ka.load_records(campaign, with_text=True, with_samples=True)
    assert "ünïcödé" in df["evidence"][0], df["evidence"][0]
    assert df["source"][0].startswith("// candidate 0\n")
    assert len(df["samples_ms"][0]) == 4 and df["samples_ms"][1] == []
    assert df["sample_count"][0] == 100  # the record's own count, independent of the stored samples


def check_units_in_file(campaign):
    with h5py.File(os.path.join(campaign, "gen-0000.h5"), "r") as f:
        assert f["records"].attrs["time_median_ms.units"] == "ms"
        assert f["samples"].attrs["units"] == "ms"
        assert f["samples"].compression == "gzip"
        assert f["population"].attrs["fitness_ms.units"] == "ms"
        assert f["baselines"].attrs["time_min_ms.units"] == "ms"


def check_other_tables(campaign):
    baselines = ka.load_baselines(campaign)
    assert len(baselines) == 4 and set(baselines["name"]) == {"openblas-0", "openblas-1"}
    assert baselines.attrs["units"]["time_median_ms"] == "ms"
    population = ka.load_population(campaign)
    assert len(population) == 8 and math.isinf(population["fitness_ms"][1])
    candidates = ka.load_candidates(campaign)
    assert len(candidates) == 8 and candidates["params"][0] == 'KC=64;alpha=0.10000000000000001;order="i,k;j"'


def check_learning(campaign):
    weights = ka.load_operator_weights(campaign)
    assert len(weights) == 4 and set(weights["op"]) == {"mutation", "agent:rewriter"}, weights
    assert weights["weight"][0] == 0.55 and weights["improved"][0] == 3
    parameters = ka.load_lessons(campaign, "parameters")  # the newest file: everything learnt so far
    assert len(parameters) == 2 and set(parameters["generation_file"]) == {"gen-0001.h5"}, parameters
    assert parameters["relative_median"][0] == 0.8 and math.isnan(parameters["median_ms"][1])
    assert (parameters["ci_low"][0], parameters["ci_high"][0]) == (0.71, 0.95) and math.isnan(parameters["ci_low"][1])
    assert parameters.attrs["units"]["median_ms"] == "ms"
    assert len(ka.load_lessons(campaign, "parameters", latest=False)) == 4
    failures = ka.load_lessons(campaign, "failures")
    assert failures["cause"][0] == "error at line #: expected ';'" and failures["count"][0] == 3
    assert ka.load_lessons(campaign, "operators")["children"].tolist() == [20, 4]
    validation = ka.load_validation(campaign)
    assert validation["text"].tolist() == ["M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=42"], validation
    assert validation["added_generation"][0] == 1 and validation["caught_status"][0] == "wrong_result"
    records = ka.load_records(campaign, with_text=True)
    assert records["failed_case"][0] == "M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=99" and records["failed_case"][1] == ""
    assert records["ptx"][0].startswith(".version 8.8\n") and records["ptx"][0].endswith("// record 0")
    assert records["ptx"][1] == ""  # a record without PTX (every host record)
    with h5py.File(os.path.join(campaign, "gen-0001.h5"), "r") as f:
        assert [s.decode() for s in f["lessons/summary"][()]][1] == "ünïcödé sentence"


def check_provenance(campaign):
    info = ka.provenance(campaign)
    assert info["kind"] == "campaign" and info["generations"] == 2, info
    assert info["schema_version"] == 2 and info["creator"] == "kforge" and info["campaign"] == "gemm-demo", info
    gen = ka.provenance(os.path.join(campaign, "gen-0001.h5"))
    assert gen["kind"] == "generation" and gen["generation"] == 1, gen


def check_single_file(campaign):
    df = ka.load_records(os.path.join(campaign, "gen-0001.h5"))
    assert len(df) == 5 and set(df["generation_file"]) == {"gen-0001.h5"}


def check_refuses_altered_and_misplaced_files(campaign):
    """The reader computes the same content digest as the C++ writer, and refuses a file that fails it or lies in
    another generation's place, naming the file."""
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "c")
        shutil.copytree(campaign, copy)
        gen1 = os.path.join(copy, "gen-0001.h5")
        with h5py.File(gen1, "r+") as f:
            f.attrs.modify("generation", 0)
        for path in (copy, gen1):
            try:
                ka.load_records(path)
                raise AssertionError(f"{path}: read without complaint")
            except ka.ArchiveError as e:  # the seal is checked first, then what the attributes tell
                assert str(e).startswith(gen1 + ": its SHA-256 differs from its seal in campaign.h5"), e
        shutil.copy(os.path.join(campaign, "gen-0000.h5"), gen1)
        try:
            ka.load_records(copy)
            raise AssertionError("generation 0's file in generation 1's place was read")
        except ka.ArchiveError as e:
            assert str(e).startswith(gen1 + ": its SHA-256 differs from its seal"), e
            assert "its 'generation' attribute says 0 but its name says 1" in str(e), e
        os.remove(os.path.join(copy, "campaign.h5"))  # no seals: the file's own digest and name still tell
        try:
            ka.load_records(gen1)
            raise AssertionError("generation 0's file in generation 1's place was read without the index")
        except ka.ArchiveError as e:
            assert str(e).startswith(gen1 + ": its 'generation' attribute says 0 but its name says 1"), e


def check_typed_parameters(campaign):
    """/parameters holds the genomes as typed columns; load_parameters gives them one column each."""
    with h5py.File(os.path.join(campaign, "gen-0001.h5"), "r") as f:
        table = f["parameters"]
        assert table.dtype["KC"] == "int64" and table.dtype["alpha"] == "float64", table.dtype
        assert len(table) == len(f["records"])
    p = ka.load_parameters(campaign)
    assert str(p["KC"].dtype) == "int64" and str(p["alpha"].dtype) == "float64", p.dtypes
    assert set(p["order"]) == {"i,k;j"}, set(p["order"])  # unquoted, ';' and ',' inside kept
    assert list(p["KC"]) == [int(x.split(";")[0][3:]) for x in p["params"]]
    assert p.groupby("KC").size().sum() == len(p)
    import kforge_speedups as ks
    assert ks.parse_params('KC=64;alpha=0.1;order="a\\"b;c"') == {"KC": 64, "alpha": 0.1, "order": 'a"b;c'}
    estimate, low, high = ks.bootstrap_interval([1.0, 2.0, 4.0])
    assert math.isclose(estimate, 2.0) and low < estimate < high, (estimate, low, high)
    assert math.isnan(ks.bootstrap_interval([3.0])[1])  # one run: no interval


def check_cli(campaign):
    here = os.path.dirname(os.path.abspath(__file__))
    run = subprocess.run([sys.executable, os.path.join(here, "kforge_archive.py"), campaign],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert "records: 8" in run.stdout and "gen-0001.h5: 5 records" in run.stdout, run.stdout


def main():
    campaign = os.path.abspath(sys.argv[1])
    os.chdir("/")  # the external links must resolve against campaign.h5's folder, not the cwd
    for check in (check_records, check_timing_noisy, check_file_without_timing_noisy, check_text_and_samples,
                  check_units_in_file, check_other_tables, check_learning, check_provenance, check_single_file,
                  check_refuses_altered_and_misplaced_files, check_typed_parameters, check_cli):
        check(campaign)
        print(f"ok  {check.__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
