#include "kforge/serve/metrics.hpp"

#include <cmath>
#include <sstream>

namespace kforge::serve {
void Histogram::observe(double seconds) {
  std::size_t b = 0;
  while (b < kLatencyBuckets.size() && seconds > kLatencyBuckets[b]) ++b;
  counts_[b].fetch_add(1, std::memory_order_relaxed);
  micros_.fetch_add(static_cast<std::uint64_t>(std::llround(std::max(0.0, seconds) * 1e6)), std::memory_order_relaxed);
}

std::string Histogram::text(const std::string& name, const std::string& labels) const {
  std::ostringstream out;
  out << "# TYPE " << name << " histogram\n";
  std::uint64_t cumulative = 0;
  for (std::size_t b = 0; b <= kLatencyBuckets.size(); ++b) {
    cumulative += counts_[b].load(std::memory_order_relaxed);
    out << name << "_bucket{" << labels << ",le=\"";
    if (b < kLatencyBuckets.size())
      out << kLatencyBuckets[b];
    else
      out << "+Inf";
    out << "\"} " << cumulative << "\n";
  }
  out << name << "_sum{" << labels << "} " << static_cast<double>(micros_.load()) * 1e-6 << "\n";
  out << name << "_count{" << labels << "} " << cumulative << "\n";
  return out.str();
}

namespace {

// A label value as the exposition format writes it: backslash, double quote and line feed escaped.
std::string label_value(const std::string& v) {
  std::string out;
  for (const char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

}  // namespace

std::string prometheus_text(const Metrics& m, const std::string& model_name) {
  const std::string model = "model_name=\"" + label_value(model_name) + "\"";
  std::ostringstream out;
  const auto counter = [&](const char* name, const char* help, std::uint64_t v, const std::string& extra = "") {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " counter\n"
        << name << "{" << model << extra << "} " << v << "\n";
  };
  const auto gauge = [&](const char* name, const char* help, std::int64_t v) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n"
        << name << "{" << model << "} " << v << "\n";
  };
  out << "# HELP kforge_request_success_total Requests finished, by finish reason.\n"
      << "# TYPE kforge_request_success_total counter\n";
  for (const auto& [reason, v] : {std::pair{"length", &m.finished_length}, std::pair{"stop", &m.finished_stop},
                                  std::pair{"abort", &m.finished_abort}})
    out << "kforge_request_success_total{" << model << ",finished_reason=\"" << reason << "\"} " << v->load() << "\n";
  counter("kforge_request_rejected_total", "Requests answered with an error before serving.", m.rejected.load());
  gauge("kforge_num_requests_running", "Requests in the engine's slots.", m.running.load());
  gauge("kforge_num_requests_waiting", "Requests queued for a slot.", m.waiting.load());
  gauge("kforge_http_connections", "Open HTTP connections.", m.connections.load());
  counter("kforge_prompt_tokens_total", "Prompt tokens fed to the engine.", m.prompt_tokens.load());
  counter("kforge_generation_tokens_total", "Tokens generated.", m.generation_tokens.load());
  counter("kforge_engine_steps_total", "Engine steps.", m.steps.load());
  counter("kforge_engine_restarts_total", "Engines started again after a failed step.", m.engine_restarts.load());
  out << "# HELP kforge_engine_step_seconds_total Time inside the engine's steps.\n"
      << "# TYPE kforge_engine_step_seconds_total counter\n"
      << "kforge_engine_step_seconds_total{" << model << "} " << static_cast<double>(m.step_micros.load()) * 1e-6
      << "\n";
  out << m.ttft.text("kforge_time_to_first_token_seconds", model);
  out << m.inter_token.text("kforge_inter_token_latency_seconds", model);
  out << m.e2e.text("kforge_e2e_request_latency_seconds", model);
  return out.str();
}

}  // namespace kforge::serve
