// Task manifests (manifest.hpp): any file either reads or throws std::runtime_error naming the file; a manifest
// that was read is written again and reads back equal (it crosses nodes: a re-run must evaluate the same work),
// or, holding text that is not UTF-8, is refused by the writer.
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "fuzz_support.hpp"
#include "kforge/jobs/manifest.hpp"

namespace {

// Which part of two manifests differs, for the report.
std::string first_difference(const kforge::jobs::TaskManifest& a, const kforge::jobs::TaskManifest& b) {
  if (!(a.settings == b.settings)) return "settings";
  if (a.candidates.size() != b.candidates.size()) return "number of candidates";
  for (std::size_t i = 0; i < a.candidates.size(); ++i) {
    const auto &x = a.candidates[i], &y = b.candidates[i];
    const std::string at = "candidates[" + std::to_string(i) + "].";
    if (x.genome.to_text() != y.genome.to_text()) return at + "genome";
    if (x.source != y.source) return at + "source";
    if (!(x == y)) return at + "(another field)";
  }
  return "a top-level field";
}

// Equal, with genomes compared by their text: a parameter may be NaN ("NC=nan" parses), never equal to itself.
bool same(kforge::jobs::TaskManifest a, kforge::jobs::TaskManifest b) {
  if (a.candidates.size() != b.candidates.size()) return false;
  for (std::size_t i = 0; i < a.candidates.size(); ++i) {
    if (a.candidates[i].genome.to_text() != b.candidates[i].genome.to_text()) return false;
    a.candidates[i].genome = b.candidates[i].genome = {};
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static kforge::fuzz::ScratchFile scratch("task.yaml");
  const auto& path = scratch.write(data, size);
  kforge::jobs::TaskManifest manifest;
  try {
    manifest = kforge::jobs::read_manifest(path);
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).find(path.string()) == std::string::npos)
      kforge::fuzz::contract_broken(std::string("manifest error without the file: ") + e.what());
    return 0;
  }
  const auto copy = scratch.dir() / "copy.yaml";
  try {
    kforge::jobs::write_manifest(copy, manifest);
  } catch (const std::runtime_error& e) {
    // Text YAML cannot hold unchanged (not UTF-8) is refused, never written altered; nothing else may fail.
    if (std::string(e.what()).find("is not valid UTF-8 text") == std::string::npos)
      kforge::fuzz::contract_broken(std::string("write_manifest failed: ") + e.what());
    return 0;
  }
  if (const auto again = kforge::jobs::read_manifest(copy); !same(again, manifest)) {
    std::ifstream written(copy);
    kforge::fuzz::contract_broken("a manifest does not read back equal after write_manifest (" +
                                  first_difference(manifest, again) + "), which wrote:\n" +
                                  std::string(std::istreambuf_iterator<char>(written), {}));
  }
  return 0;
}
