// Candidate identity: a content hash, so the same experiment gets the same id on every node and every run.
#include "kforge/jobs/candidate.hpp"

#include "detail/sha256.hpp"

namespace kforge::jobs {
namespace {

// "<decimal length>:<bytes>" so that no two field lists hash the same text ("ab"+"c" vs "a"+"bc").
void hash_field(detail::Sha256& h, std::string_view field) {
  h.update(std::to_string(field.size()));
  h.update(":");
  h.update(field);
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  detail::Sha256 h;
  h.update(bytes);
  return detail::to_hex(h.finish());
}

std::string candidate_id(const Candidate& c) {
  detail::Sha256 h;
  hash_field(h, c.family);
  hash_field(h, c.genome.to_text());
  hash_field(h, c.source);
  hash_field(h, c.backend);
  hash_field(h, c.compile_flags);
  return detail::to_hex(h.finish()).substr(0, 32);
}

const std::string& assign_id(Candidate& c) {
  c.id = candidate_id(c);
  return c.id;
}

}  // namespace kforge::jobs
