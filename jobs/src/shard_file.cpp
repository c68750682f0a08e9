// Task shards: what one array task produced. Root attributes say which task; tables hold the records.
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "detail/archive_file.hpp"
#include "detail/durable_file.hpp"
#include "detail/h5_records.hpp"
#include "detail/sha256.hpp"
#include "kforge/jobs/archive_binding.hpp"
#include "kforge/jobs/text_file.hpp"

namespace kforge::jobs {
namespace {

// DIR/campaign-id of the campaign folder a shard at DIR/gNNNN/shards/TTTT.h5 is written into; "" elsewhere.
// kforge-eval fills the shard's provenance from its manifest, which names the campaign but not its id.
std::string campaign_id_of_folder(const std::filesystem::path& shard_path) {
  // lexically_normal: kforge-eval names it through its manifest's folder, DIR/gNNNN/tasks/../shards/TTTT.h5.
  const auto path = std::filesystem::absolute(shard_path).lexically_normal();
  const auto root = path.parent_path().parent_path().parent_path();
  if (path.parent_path().filename() != "shards") return "";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(root / kCampaignIdFile, ec)) return "";
  return read_campaign_id(root);
}

void write_shard_contents(hid_t file, const Shard& s, const Provenance& provenance) {
  detail::write_provenance(file, provenance, "shard");
  h5::write_attr(file, "generation", static_cast<long long>(s.generation));
  h5::write_attr(file, "island", static_cast<long long>(s.island));
  h5::write_attr(file, "task", static_cast<long long>(s.task));
  h5::write_attr(file, "target", s.target);
  h5::write_records(file, s.records);
  h5::write_baselines(file, s.baselines);
}

Shard read_shard_contents(hid_t file) {
  Shard s;
  s.provenance = detail::read_provenance(file);
  s.generation = static_cast<int>(h5::read_int_attr(file, "generation"));
  s.island = static_cast<int>(h5::read_int_attr(file, "island"));
  s.task = static_cast<int>(h5::read_int_attr(file, "task"));
  s.target = h5::read_string_attr(file, "target");
  s.records = h5::read_records(file);
  s.baselines = h5::read_baselines(file);
  return s;
}

// The seal: "SHA256 BYTES" of the shard file, next to it. Checked before libhdf5 parses the file, because libhdf5
// 1.10 can hang or overrun memory on some damaged files (tests/fuzz/crashes/README.md): a shard damaged after it was
// written is refused by its bytes alone.
std::filesystem::path seal_path(const std::filesystem::path& shard) {
  return shard.parent_path() / (shard.filename().string() + ".seal");
}

std::string seal_of(const std::filesystem::path& file) {
  return detail::file_sha256_hex(file) + " " + std::to_string(std::filesystem::file_size(file)) + "\n";
}

void check_seal(const std::filesystem::path& shard) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(shard, ec)) return;             // the HDF5 open names what is wrong
  if (!std::filesystem::is_regular_file(seal_path(shard), ec)) return;  // written before seals (schema 1)
  std::ifstream in(seal_path(shard));
  std::stringstream text;
  text << in.rdbuf();
  if (text.str() != seal_of(shard))
    throw std::runtime_error("its bytes do not match its seal " + seal_path(shard).filename().string() +
                             " (damaged or replaced after kforge-eval wrote it)");
}

}  // namespace

void write_shard(const std::filesystem::path& path, const Shard& s) {
  detail::with_file_context(path, "writing shard", [&] {
    auto tmp = detail::temp_path_for(path);
    detail::TempFileGuard guard(tmp);
    Provenance provenance = s.provenance;
    if (provenance.campaign_id.empty()) provenance.campaign_id = campaign_id_of_folder(path);
    h5::File file = detail::create_archive_file(tmp);
    write_shard_contents(file, s, provenance);
    detail::flush_and_close(file);
    // Seal first, then publish: a crash in between leaves a shard that fails its seal and is run again.
    write_text_file_atomically(seal_path(path), seal_of(tmp));
    detail::publish_replacing(tmp, path);  // a re-run task replaces its earlier shard whole
    guard.release();
  });
}

Shard read_shard(const std::filesystem::path& path, const FileExpectation& expected) {
  Shard s;
  detail::with_file_context(path, "reading shard", [&] {
    check_seal(path);
    h5::File file = detail::open_archive_file(path, "shard");
    detail::check_place(file, path, "shard", expected);
    s = read_shard_contents(file);
  });
  return s;
}

}  // namespace kforge::jobs
