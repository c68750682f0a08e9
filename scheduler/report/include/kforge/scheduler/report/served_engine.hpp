#pragma once
// Which engine of a finished engine campaign `kforge serve DIR` serves (docs/serving.md): the fastest verified
// record (status ok; an engine's time is ms per output token), at one precision or of one candidate id, with what
// kforge-serve needs to run it again: its genome, its exact source and the model folder its task served.
#include <optional>
#include <string>

#include "kforge/scheduler/config/campaign_dir.hpp"

namespace kforge::scheduler {

struct ServedEngineChoice {
  std::string candidate_id;
  int generation = 0;
  std::string params;  // the genome, canonical text
  std::string precision;
  std::string source;
  std::string model_path;  // absolute, from the task manifest that evaluated it
  double ms_per_token = 0.0;
};

// precision "" = any; candidate "" = the fastest. Throws std::runtime_error naming DIR and why there is none (no
// finished generation, not an engine campaign, no verified engine at that precision, no such candidate).
ServedEngineChoice choose_served_engine(const CampaignDir& dir, const std::string& precision,
                                        const std::string& candidate);

}  // namespace kforge::scheduler
