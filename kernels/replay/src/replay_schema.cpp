// The replay backend's schema: any family, whose parameters are those of the measured space it answers from.
#include "kforge/kernels/family_schema_builders.hpp"

namespace kforge::kernels::schema {

FamilySchema replay_any() {
  FamilySchema s = pair_of("replay", "*");
  s.parameters_from_cache = true;  // no problem keys, no baselines: every answer is a measured time
  return s;
}

}  // namespace kforge::kernels::schema
