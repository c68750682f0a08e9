#include "kforge/scheduler/driver/engine_kernel_import.hpp"

#include <algorithm>
#include <stdexcept>

#include "kforge/scheduler/config/archive_view.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"

namespace kforge::scheduler {
namespace {

jobs::EvalRecord best_kernel_record(const std::filesystem::path& dir, const CampaignConfig& campaign) {
  const std::string where = dir.string();
  ArchiveView archive = [&] {
    try {
      return ArchiveView::load(CampaignDir(dir));
    } catch (const std::exception& e) {
      throw std::runtime_error(where + " is not a readable campaign folder: " + e.what());
    }
  }();
  const std::optional<jobs::EvalRecord> best = archive.best();
  if (!best) throw std::runtime_error(where + " has no successful candidate to import");
  if (best->backend != "host" || (best->family != "gemm" && best->family != "kda"))
    throw std::runtime_error(where + " is a " + best->backend + " " + best->family +
                             " campaign; host engines import host gemm and kda kernels");
  const std::string& architecture = campaign.eval.engine.model.architecture;
  if (best->family == "kda" && architecture != "kimi-linear")
    throw std::runtime_error(where + " is a kda campaign, and the model (architecture " + architecture +
                             ") has no KDA layer to run its kernel");
  return *best;
}

// The engine's name for a kernel parameter: the gemm family's as they are (MC, ..., LOOP_ORDER), the kda family's
// with the prefix KDA_ (KDA_CHUNK, KDA_DV_TILE, KDA_UNROLL, KDA_VEC).
std::string engine_name(const std::string& family, const std::string& parameter) {
  return family == "kda" ? "KDA_" + parameter : parameter;
}

// The engine genome with the imported kernel's values: every parameter of the kernel must be one of the space's.
jobs::Genome with_kernel(jobs::Genome engine, const jobs::EvalRecord& best, const SearchSpace& space,
                         const std::filesystem::path& dir) {
  const jobs::Genome kernel = jobs::Genome::from_text(best.params);
  for (const auto& [name, value] : kernel.params) {
    const std::string as = engine_name(best.family, name);
    const auto spec = std::find_if(space.parameters().begin(), space.parameters().end(),
                                   [&](const ParameterSpec& p) { return p.name == as; });
    if (spec == space.parameters().end())
      throw std::runtime_error("the best kernel of " + dir.string() + " (" + kernel.to_text() + ") sets " + name +
                               ", which the engine's space.parameters does not list as " + as);
    if (std::find(spec->values.begin(), spec->values.end(), value) == spec->values.end())
      throw std::runtime_error("the best kernel of " + dir.string() + " (" + kernel.to_text() + ") has " + name + "=" +
                               jobs::to_text(value) + ", which space.parameters." + as +
                               " does not list: add it there");
    engine.params[as] = value;
  }
  if (!space.contains(engine))
    throw std::runtime_error("the best kernel of " + dir.string() + " (" + kernel.to_text() +
                             ") breaks the engine campaign's space.constraints with these values");
  return engine;
}

}  // namespace

void check_kernels_from(const CampaignConfig& campaign, const SearchSpace& space) {
  std::mt19937_64 rng(0x6b666f726765ULL);  // fixed: validation gives the same answer every time
  for (std::size_t i = 0; i < campaign.engine_kernels_from.size(); ++i) {
    const std::string key = "engine.kernels_from[" + std::to_string(i) + "]";
    const auto& dir = campaign.engine_kernels_from[i];
    try {
      with_kernel(space.random_genome(rng), best_kernel_record(dir, campaign), space, dir);
    } catch (const std::runtime_error& e) {
      throw ConfigError(campaign.location_of(key), key, e.what(),
                        "a finished host gemm or kda campaign whose best kernel fits the engine's space");
    }
  }
}

std::vector<jobs::Candidate> imported_kernel_candidates(const CampaignConfig& campaign, const SearchSpace& space,
                                                        const CandidateTemplate& tmpl, int island,
                                                        std::set<std::string>& seen, std::mt19937_64& rng) {
  std::vector<jobs::Candidate> out;
  for (const auto& dir : campaign.engine_kernels_from) {
    jobs::Candidate c;
    c.family = tmpl.family;
    c.backend = tmpl.backend;
    c.compile_flags = tmpl.compile_flags;
    try {
      c.genome = with_kernel(space.random_genome(rng), best_kernel_record(dir, campaign), space, dir);
    } catch (const std::runtime_error& e) {  // the folder changed since validation
      throw std::runtime_error(std::string("engine.kernels_from: ") + e.what());
    }
    c.op = "kernels_from";
    c.island = island;
    jobs::assign_id(c);
    if (seen.insert(c.id).second) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kforge::scheduler
