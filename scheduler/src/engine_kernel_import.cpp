#include "kforge/scheduler/engine_kernel_import.hpp"

#include <stdexcept>

#include "kforge/scheduler/archive_view.hpp"
#include "kforge/scheduler/campaign_dir.hpp"

namespace kforge::scheduler {
namespace {

jobs::EvalRecord best_gemm_record(const std::filesystem::path& dir) {
  const std::string where = "engine.kernels_from: " + dir.string();
  ArchiveView archive = [&] {
    try {
      return ArchiveView::load(CampaignDir(dir));
    } catch (const std::exception& e) {
      throw std::runtime_error(where + " is not a readable campaign folder: " + e.what());
    }
  }();
  const std::optional<jobs::EvalRecord> best = archive.best();
  if (!best) throw std::runtime_error(where + " has no successful candidate to import");
  if (best->family != "gemm")
    throw std::runtime_error(where + " is a " + best->family + " campaign; engines import gemm kernels");
  return *best;
}

// The engine genome with the imported kernel's values for every parameter both spaces have.
jobs::Genome with_kernel(jobs::Genome engine, const jobs::Genome& kernel, const SearchSpace& space,
                         const std::filesystem::path& dir) {
  for (const auto& p : space.parameters()) {
    const auto it = kernel.params.find(p.name);
    if (it == kernel.params.end()) continue;
    engine.params[p.name] = it->second;
  }
  if (!space.contains(engine))
    throw std::runtime_error("engine.kernels_from: the best kernel of " + dir.string() + " (" + kernel.to_text() +
                             ") is not in the engine campaign's space: add its values to space.parameters");
  return engine;
}

}  // namespace

std::vector<jobs::Candidate> imported_kernel_candidates(const CampaignConfig& campaign, const SearchSpace& space,
                                                        const CandidateTemplate& tmpl, int island,
                                                        std::set<std::string>& seen, std::mt19937_64& rng) {
  std::vector<jobs::Candidate> out;
  for (const auto& dir : campaign.engine_kernels_from) {
    const jobs::EvalRecord best = best_gemm_record(dir);
    jobs::Candidate c;
    c.family = tmpl.family;
    c.backend = tmpl.backend;
    c.compile_flags = tmpl.compile_flags;
    c.genome = with_kernel(space.random_genome(rng), jobs::Genome::from_text(best.params), space, dir);
    c.op = "kernels_from";
    c.island = island;
    jobs::assign_id(c);
    if (seen.insert(c.id).second) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kforge::scheduler
