#include "kforge/jobs/manifest.hpp"

namespace kforge::jobs {

EvalRecord record_for(const Candidate& c, const TaskManifest& m) {
  EvalRecord r;
  r.candidate_id = c.id;
  r.family = c.family.empty() ? m.family : c.family;
  r.backend = c.backend.empty() ? m.backend : c.backend;
  r.params = c.genome.to_text();
  r.parents = c.parents;
  r.op = c.op;
  r.generation = c.generation;
  r.island = c.island;
  r.target = m.target;
  return r;
}

}  // namespace kforge::jobs
