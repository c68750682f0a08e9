// controller_check.hpp: GRES matching and the controller check.
#include "kforge/scheduler/executors/controller_check.hpp"

#include <algorithm>
#include <cctype>
#include <memory>

#include "kforge/scheduler/executors/slurm_conf.hpp"
#include "kforge/slurm/slurm_client.hpp"

namespace kforge::scheduler {
namespace {

struct GresItem {
  std::string name, type;
  long long count = 1;
};

// "gpu:h100:4" -> {gpu, h100, 4}; "gpu:4" -> {gpu, "", 4}; "gpu:h100" -> {gpu, h100, 1}.
GresItem parse_item(const std::string& text) {
  GresItem item;
  std::vector<std::string> fields;
  for (std::size_t start = 0;;) {
    const std::size_t colon = text.find(':', start);
    fields.push_back(text.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  item.name = fields[0];
  const std::string& last = fields.back();
  const bool counted = fields.size() > 1 && !last.empty() &&
                       std::all_of(last.begin(), last.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  if (counted) {
    item.count = std::stoll(last.substr(0, 15));
    fields.pop_back();
  }
  if (fields.size() > 1) item.type = fields[1];
  return item;
}

// A node's Gres= without the socket/index annotations in parentheses, split at its commas.
std::vector<GresItem> parse_list(const std::string& text) {
  std::string plain;
  int depth = 0;
  for (char c : text) {
    if (c == '(')
      ++depth;
    else if (c == ')')
      depth = depth > 0 ? depth - 1 : 0;
    else if (depth == 0)
      plain += c;
  }
  std::vector<GresItem> items;
  for (std::size_t start = 0; start < plain.size();) {
    const std::size_t comma = std::min(plain.find(',', start), plain.size());
    if (comma > start && plain.substr(start, comma - start) != "(null)")
      items.push_back(parse_item(plain.substr(start, comma - start)));
    start = comma + 1;
  }
  return items;
}

bool offers(const std::vector<GresItem>& node, const GresItem& want) {
  long long have = 0;
  for (const auto& g : node) {
    if (g.name == want.name && (want.type.empty() || g.type == want.type)) have += g.count;
  }
  return have >= want.count;
}

}  // namespace

bool some_node_offers(const std::vector<std::string>& node_gres, const std::string& wanted) {
  const std::vector<GresItem> want = parse_list(wanted);
  for (const auto& text : node_gres) {
    const std::vector<GresItem> node = parse_list(text);
    if (std::all_of(want.begin(), want.end(), [&](const GresItem& w) { return offers(node, w); })) return true;
  }
  return false;
}

std::string check_site_against_controller(const SiteConfig& site) {
  if (site.executor != "slurm") return "";
  const std::string not_checked = "partitions and GRES not checked";
  if (!site.slurm.conf.empty()) require_slurm_conf(site);  // a named slurm.conf that is missing is the site's error
  if (const std::string why = missing_slurm_conf(site); !why.empty()) {
    return "controller not reachable: " + not_checked + " (" + why + ")";
  }
  std::unique_ptr<kforge::slurm::SlurmClient> client;
  try {
    client = kforge::slurm::make_slurm_client(site.slurm.client);
    client->version();
  } catch (const std::exception& e) {
    return "controller not reachable: " + not_checked + " (" + std::string(e.what()) + ")";
  }
  int gres_checked = 0;
  for (const auto& [name, t] : site.slurm.targets) {
    const std::string key = "slurm.targets." + name;
    std::vector<std::string> node_gres;
    try {
      node_gres = client->partition_node_gres(t.partition);
    } catch (const kforge::slurm::SlurmError& e) {
      throw ConfigError(t.partition_where, key + ".partition",
                        "the controller has no partition '" + t.partition + "' (" + e.slurm_message() + ")",
                        "a partition that `sinfo --summarize` lists");
    }
    if (t.gres.empty()) continue;
    if (!some_node_offers(node_gres, t.gres)) {
      std::string seen;
      for (const auto& g : node_gres) seen += (seen.empty() ? "" : "; ") + (g.empty() ? "(none)" : g);
      throw ConfigError(t.gres_where, key + ".gres",
                        "no node of partition '" + t.partition + "' has " + t.gres +
                            " (its nodes have: " + (seen.empty() ? "no nodes" : seen) + ")",
                        "a GRES that `sinfo --Node --partition=" + t.partition + " --Format=Gres` shows");
    }
    ++gres_checked;
  }
  const std::string& agents = site.slurm.agent_partition;
  if (!agents.empty()) {  // agent operators run as jobs there (docs/agents.md)
    try {
      client->partition_node_gres(agents);
    } catch (const kforge::slurm::SlurmError& e) {
      throw ConfigError(site.slurm.agent_partition_where, "slurm.agent_partition",
                        "the controller has no partition '" + agents + "' (" + e.slurm_message() + ")",
                        "a partition that `sinfo --summarize` lists");
    }
  }
  return "controller checked (" + client->backend_name() + "): the partitions of " +
         std::to_string(site.slurm.targets.size()) + " target(s)" + (agents.empty() ? "" : " and of the agents") +
         " and " + std::to_string(gres_checked) + " GRES request(s) found";
}

}  // namespace kforge::scheduler
