#pragma once
// A candidate: what is evaluated. Its id is a content hash (ARCHITECTURE.md, "Candidate id").
#include <string>
#include <vector>

#include "kforge/jobs/genome.hpp"

namespace kforge::jobs {

struct Candidate {
  std::string id;       // candidate_id(*this); 32 lower-case hex digits
  std::string family;   // e.g. "gemm"
  std::string backend;  // "host", "cuda", "replay"
  Genome genome;
  std::string source;                // full source text; empty = rendered from the family template by the backend
  std::string compile_flags;         // extra flags beyond the backend's defaults
  std::vector<std::string> parents;  // parent candidate ids (empty for random/initial)
  std::string op;                    // operator that made it: "init", "mutation", "crossover", "immigrant", ...
  int generation = 0;
  int island = 0;
  bool operator==(const Candidate&) const = default;
};

// SHA-256 over the length-prefixed fields (family, genome text, source, backend, compile flags),
// first 128 bits as hex. Lineage (parents, op, generation, island) is not part of the identity.
std::string candidate_id(const Candidate& c);

// Sets c.id = candidate_id(c) and returns it.
const std::string& assign_id(Candidate& c);

// Lower-case hex SHA-256 of arbitrary bytes (used for config hashes too).
std::string sha256_hex(std::string_view bytes);

}  // namespace kforge::jobs
