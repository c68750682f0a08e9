#pragma once
// Everything the finished generations of a campaign hold, loaded once from DIR/gen-*.h5.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kforge/jobs/archive.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"

namespace kforge::scheduler {

class ArchiveView {
 public:
  static ArchiveView load(const CampaignDir& dir);

  const std::vector<jobs::Generation>& generations() const { return generations_; }
  const jobs::Candidate* candidate(const std::string& id) const;
  const jobs::EvalRecord* record(const std::string& id, const std::string& target) const;
  // Ids with a record on target: the dedup set (a candidate is never evaluated twice on the same target).
  std::set<std::string> evaluated_ids(const std::string& target) const;
  // Survivors of the last finished generation on one island (empty before generation 0 ends).
  std::vector<jobs::PopulationEntry> last_population(int island) const;
  // What the last finished generation stored: the campaign's validation set and lessons so far.
  std::vector<jobs::ValidationCase> validation_set() const;
  jobs::Lessons lessons() const;
  // The best ok record over the whole campaign, if any.
  std::optional<jobs::EvalRecord> best() const;

  void add(jobs::Generation g);  // the driver appends the generation it is about to write
  // The newest generation's /search_model rows, judged once it is in the view, before it is written.
  void set_model_quality(std::vector<jobs::ModelQualityRow> rows) {
    generations_.back().model_quality = std::move(rows);
  }

 private:
  std::vector<jobs::Generation> generations_;
  std::map<std::string, jobs::Candidate> candidates_;
  std::map<std::pair<std::string, std::string>, jobs::EvalRecord> records_;  // (id, target)
};

}  // namespace kforge::scheduler
