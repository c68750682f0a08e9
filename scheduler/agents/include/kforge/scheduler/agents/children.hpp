#pragma once
// The agent operator's output (docs/agents.md, "Children file"): a YAML (or JSON) document
//   children:
//     - genome: {MC: 64, ...}     # optional when source is given: the parent's genome is kept
//       source: |                 # optional when genome is given: the backend renders the genome
//         ...
//       parents: [<id>]           # optional: which brief parents it came from (default: all of them)
//       rationale: why this child
// Reading never throws on malformed content: a bad entry is rejected with its reason, a bad file is a failure.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/jobs/candidate.hpp"
#include "kforge/scheduler/agents/brief.hpp"
#include "kforge/scheduler/search/population.hpp"
#include "kforge/scheduler/search/search_space.hpp"

namespace kforge::scheduler {

inline constexpr std::size_t kMaxChildSourceBytes = 1 << 20;  // a larger source is rejected

struct AgentChild {
  int index = 0;                     // position in the file, 0-based
  jobs::Genome genome;               // empty when the entry gave only a source
  std::string source;                // empty when the entry gave only a genome
  std::vector<std::string> parents;  // brief parent ids; empty = all of the brief's parents
  std::string rationale;
};

struct RejectedChild {
  int index = 0;
  std::string reason;  // e.g. "children[2]: genome: MC=65 is not one of the listed values (16, 32, 64)"
};

struct ChildrenFile {
  std::string failure;  // the whole file is unusable (missing, not YAML, no children list); empty otherwise
  std::vector<AgentChild> children;
  std::vector<RejectedChild> rejected;
  bool ok() const { return failure.empty(); }
};

struct ChildrenRules {
  const SearchSpace* space = nullptr;   // genomes must be complete and valid in it (required)
  int max_children = 0;                 // entries beyond this are rejected ("too many children")
  std::vector<std::string> parent_ids;  // the brief's parents: the only ids an entry may name
  std::string backend;                  // the campaign's: a child declared `source_kind: ptx` needs "cuda"
};

ChildrenFile parse_children(const std::string& text, const ChildrenRules& rules);
ChildrenFile read_children(const std::filesystem::path& file, const ChildrenRules& rules);

// Rules for the children of `brief`: its children_wanted and parent ids.
ChildrenRules children_rules(const AgentBrief& brief, const SearchSpace& space);

// Children -> candidates with op "agent:<agent_name>", lineage from the brief (generation, island, parents)
// and ids from jobs::assign_id: a child with a source hashes that source, so a source-level edit is a
// different candidate from its parent. A source-only child keeps the genome of its first parent. Children
// with the same id as an earlier one in the list are dropped (the caller still dedups against the archive).
std::vector<jobs::Candidate> agent_candidates(const std::vector<AgentChild>& children, const AgentBrief& brief,
                                              const std::string& agent_name, const CandidateTemplate& tmpl);

}  // namespace kforge::scheduler
