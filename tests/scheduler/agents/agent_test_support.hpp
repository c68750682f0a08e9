#pragma once
// A small space and brief shared by the agent tests.
#include <string>

#include "kforge/scheduler/agents/brief.hpp"

namespace kforge::scheduler::testing {

// MC in {16, 32, 64}, ORDER in {"jpi", "pji"}, ALPHA in {0.5, 1.0}, with the constraint MC * 2 <= 100
// (so MC=64 is listed but invalid).
inline SpaceSpec small_space() {
  SpaceSpec space;
  space.parameters.push_back({"MC", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}}, {}});
  space.parameters.push_back({"ORDER", {std::string("jpi"), std::string("pji")}, {}});
  space.parameters.push_back({"ALPHA", {0.5, 1.0}, {}});
  space.constraints.push_back({"MC * 2 <= 100", {}});
  return space;
}

inline BriefParent parent(const std::string& id, std::int64_t mc, const std::string& source) {
  BriefParent p;
  p.candidate.id = id;
  p.candidate.op = "mutation";
  p.candidate.generation = 2;
  p.candidate.genome.params = {{"MC", mc}, {"ORDER", std::string("jpi")}, {"ALPHA", 1.0}};
  p.candidate.source = source;
  p.record.status = jobs::Status::ok;
  p.record.time_median_ms = 1.25;
  p.record.speedup = 3.5;
  p.record.evidence = "verify: max_rel_error 1.2e-06\n";
  return p;
}

inline AgentBrief small_brief() {
  AgentBrief brief;
  brief.campaign = "agents-test";
  brief.family = "gemm";
  brief.backend = "host";
  brief.target = "host";
  brief.generation = 3;
  brief.island = 1;
  brief.children_wanted = 2;
  brief.parents.push_back(parent("aaaa0000aaaa0000aaaa0000aaaa0000", 32, "int f() { return 1; }\n"));
  auto failed = parent("bbbb1111bbbb1111bbbb1111bbbb1111", 16, "");
  failed.record.status = jobs::Status::compile_error;
  failed.record.time_median_ms = jobs::kNaN;
  failed.record.speedup = jobs::kNaN;
  failed.record.evidence = "  candidate.cpp:3: error: expected ';'\n\tnote: tabs, \"quotes\" and no final newline";
  brief.parents.push_back(failed);
  brief.lessons = {"PACK=1 wins above K=256", "VEC=8 needs NR % 8 == 0"};
  brief.space = small_space();
  return brief;
}

}  // namespace kforge::scheduler::testing
