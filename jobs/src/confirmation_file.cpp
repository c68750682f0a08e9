// DIR/confirmation.h5 (kforge/jobs/confirmation.hpp): root provenance as every kforge file, and a /confirmation
// group with the speedups and the raw per-round samples they were computed from, so that a reader can recompute.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "detail/archive_file.hpp"
#include "detail/durable_file.hpp"
#include "detail/h5_table.hpp"
#include "kforge/jobs/confirmation.hpp"

namespace kforge::jobs {
namespace {

constexpr const char* kKind = "confirmation";
constexpr const char* kGroup = "confirmation";

struct SpeedupRow {
  std::int32_t island;
  const char* target;
  std::int32_t rank;
  const char* candidate_id;
  const char* params;
  const char* baseline;
  std::int32_t rounds;
  double speedup;
  double ci_low;
  double ci_high;
  double candidate_ms;
  double baseline_ms;
  double campaign_speedup;
  const char* verdict;
};

struct SampleRow {
  std::int32_t island;
  const char* target;
  std::int32_t round;
  const char* subject;
  const char* status;
  double time_ms;
};

h5::Datatype speedup_type() {
  h5::Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(SpeedupRow))));
  h5::Datatype str = h5::vlen_string_type();
  KFORGE_MEMBER(t, SpeedupRow, island, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, SpeedupRow, target, str);
  KFORGE_MEMBER(t, SpeedupRow, rank, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, SpeedupRow, candidate_id, str);
  KFORGE_MEMBER(t, SpeedupRow, params, str);
  KFORGE_MEMBER(t, SpeedupRow, baseline, str);
  KFORGE_MEMBER(t, SpeedupRow, rounds, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, SpeedupRow, speedup, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, SpeedupRow, ci_low, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, SpeedupRow, ci_high, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, SpeedupRow, candidate_ms, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, SpeedupRow, baseline_ms, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, SpeedupRow, campaign_speedup, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, SpeedupRow, verdict, str);
  return t;
}

h5::Datatype sample_type() {
  h5::Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(SampleRow))));
  h5::Datatype str = h5::vlen_string_type();
  KFORGE_MEMBER(t, SampleRow, island, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, SampleRow, target, str);
  KFORGE_MEMBER(t, SampleRow, round, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, SampleRow, subject, str);
  KFORGE_MEMBER(t, SampleRow, status, str);
  KFORGE_MEMBER(t, SampleRow, time_ms, H5T_NATIVE_DOUBLE);
  return t;
}

void write_contents(hid_t file, const Confirmation& c) {
  detail::write_provenance(file, c.provenance, kKind);
  h5::write_attr(file, "confirmation_schema_version", static_cast<long long>(kConfirmationSchemaVersion));
  h5::Group group(KFORGE_H5_CHECK(H5Gcreate2(file, kGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  h5::write_attr(group, "generations", static_cast<long long>(c.generations));
  h5::write_attr(group, "top", static_cast<long long>(c.top));
  h5::write_attr(group, "rounds", static_cast<long long>(c.rounds));
  h5::write_attr(group, "resamples", static_cast<long long>(c.resamples));
  h5::write_attr(group, "seed", std::to_string(c.seed));  // a uint64 does not fit the signed integer attribute
  h5::write_double_attr(group, "confidence", c.confidence);
  h5::write_attr(group, "statistic", "geometric mean of per-round ratios baseline_ms / candidate_ms");
  std::vector<SpeedupRow> speedups;
  for (const auto& s : c.speedups) {
    speedups.push_back({s.island, s.target.c_str(), s.rank, s.candidate_id.c_str(), s.params.c_str(),
                        s.baseline.c_str(), s.rounds, s.speedup, s.ci_low, s.ci_high, s.candidate_ms, s.baseline_ms,
                        s.campaign_speedup, s.verdict.c_str()});
  }
  h5::Datatype smem = speedup_type();
  h5::Dataset sds = h5::write_table(group, "speedups", smem, h5::packed_copy(smem), speedups);
  h5::write_units(sds, {{"speedup", "1"},
                        {"ci_low", "1"},
                        {"ci_high", "1"},
                        {"candidate_ms", "ms"},
                        {"baseline_ms", "ms"},
                        {"campaign_speedup", "1"}});
  std::vector<SampleRow> samples;
  for (const auto& s : c.samples)
    samples.push_back({s.island, s.target.c_str(), s.round, s.subject.c_str(), s.status.c_str(), s.time_ms});
  h5::Datatype pmem = sample_type();
  h5::Dataset pds = h5::write_table(group, "samples", pmem, h5::packed_copy(pmem), samples);
  h5::write_units(pds, {{"time_ms", "ms"}});
}

Confirmation read_contents(hid_t file) {
  Confirmation c;
  c.provenance = detail::read_provenance(file);
  const long long layout = h5::read_int_attr(file, "confirmation_schema_version");
  if (layout < 1 || layout > kConfirmationSchemaVersion)
    throw std::runtime_error("confirmation_schema_version " + std::to_string(layout) +
                             " is not one this kforge reads (1.." + std::to_string(kConfirmationSchemaVersion) + ")");
  if (!h5::has_link(file, kGroup)) throw std::runtime_error("group '/confirmation' is missing");
  h5::Group group(KFORGE_H5_CHECK(H5Gopen2(file, kGroup, H5P_DEFAULT)));
  c.generations = static_cast<std::int32_t>(h5::read_int_attr(group, "generations"));
  c.top = static_cast<std::int32_t>(h5::read_int_attr(group, "top"));
  c.rounds = static_cast<std::int32_t>(h5::read_int_attr(group, "rounds"));
  c.resamples = static_cast<std::int32_t>(h5::read_int_attr(group, "resamples"));
  c.seed = std::strtoull(h5::read_string_attr(group, "seed").c_str(), nullptr, 10);
  c.confidence = h5::read_double_attr(group, "confidence");
  h5::TableRows<SpeedupRow> speedups(group, "speedups", speedup_type());
  for (const auto& r : speedups.rows()) {
    c.speedups.push_back({r.island, h5::text_or_empty(r.target), r.rank, h5::text_or_empty(r.candidate_id),
                          h5::text_or_empty(r.params), h5::text_or_empty(r.baseline), r.rounds, r.speedup, r.ci_low,
                          r.ci_high, r.candidate_ms, r.baseline_ms, r.campaign_speedup, h5::text_or_empty(r.verdict)});
  }
  h5::TableRows<SampleRow> samples(group, "samples", sample_type());
  for (const auto& r : samples.rows()) {
    c.samples.push_back({r.island, h5::text_or_empty(r.target), r.round, h5::text_or_empty(r.subject),
                         h5::text_or_empty(r.status), r.time_ms});
  }
  return c;
}

}  // namespace

void write_confirmation(const std::filesystem::path& path, const Confirmation& c) {
  detail::with_file_context(path, "writing confirmation", [&] {
    auto tmp = detail::temp_path_for(path);
    detail::TempFileGuard guard(tmp);
    h5::File file = detail::create_archive_file(tmp);
    write_contents(file, c);
    detail::flush_and_close(file);
    detail::publish_replacing(tmp, path);
    guard.release();
  });
}

Confirmation read_confirmation(const std::filesystem::path& path, const std::string& expected_campaign_id) {
  Confirmation c;
  detail::with_file_context(path, "reading confirmation", [&] {
    h5::File file = detail::open_archive_file(path, kKind);
    detail::check_place(file, path, kKind, FileExpectation{expected_campaign_id, -1, -1, ""});
    c = read_contents(file);
  });
  return c;
}

}  // namespace kforge::jobs
