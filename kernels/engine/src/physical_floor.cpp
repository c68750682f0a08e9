#include "kforge/engine/physical_floor.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "kforge/engine/model_weights.hpp"

namespace kforge::kernels::engine {
namespace {

constexpr std::size_t kMostMeasuredBytes = std::size_t{256} << 20;
constexpr int kPasses = 5;

// Sixteen bytes at a time (SSE2, on any x86-64: the node may lack a wider vector unit) into sixteen independent
// sums, four cache lines per iteration, each line asked for 4 KB ahead. Without the prefetches the loop waited on
// each line as the hardware prefetcher (which stops at page boundaries) fell behind: 18-20 GB/s on the 2-core
// development VM where fp32 engines streamed their weights at 26 GB/s, so engines read "faster than the node";
// with them it reads 24-26 GB/s there (bench/README.md, "Precisions at a real shape").
using Lane = std::uint64_t __attribute__((vector_size(16)));
constexpr std::size_t kLanesAhead = 4096 / sizeof(Lane);

std::uint64_t read_all(const Lane* p, std::size_t lanes) {
  Lane s[16] = {};
  std::size_t i = 0;
  for (; i + 16 <= lanes; i += 16) {
    const std::size_t ahead = std::min(i + kLanesAhead, lanes - 16);  // never past the buffer
    for (std::size_t line = 0; line < 16; line += 4) __builtin_prefetch(p + ahead + line);
#pragma GCC unroll 16
    for (std::size_t j = 0; j < 16; ++j) s[j] += p[i + j];
  }
  for (; i < lanes; ++i) s[0] += p[i];
  Lane total{};
  for (const Lane& x : s) total += x;
  return total[0] + total[1];
}

std::string ms(double v) {
  std::ostringstream out;
  out.precision(3);
  out << std::fixed << v << " ms";
  return out.str();
}

}  // namespace

double weight_bytes_per_step(const jobs::ModelSpec& model, WeightPrecision precision) {
  const double matrix_bytes = bytes_per_weight(precision);
  double bytes = 0.0;
  for (const TensorInfo& t : tensor_list(model))
    bytes += static_cast<double>(t.elements()) * (t.shape.size() == 2 ? matrix_bytes : 4.0);
  if (!model.tied_embeddings)
    bytes -= static_cast<double>(model.vocab) * static_cast<double>(model.hidden) * matrix_bytes;
  return bytes;
}

double least_bytes_read(const jobs::ModelSpec& model, const ServingResult& run, WeightPrecision precision,
                        ActivationPrecision activations) {
  std::int64_t attention = 0;
  for (std::int64_t l = 0; l < model.layers; ++l) attention += is_attention_layer(model, l) ? 1 : 0;
  const std::int64_t kda = model.layers - attention;
  const double kv_bytes_per_position = 2.0 * static_cast<double>(kv_value_bytes(activations)) *
                                       static_cast<double>(model.kv_heads * model.head_dim * attention);
  const double state_bytes = 4.0 * static_cast<double>(model.heads * model.head_dim * model.head_dim * kda);
  return weight_bytes_per_step(model, precision) * static_cast<double>(run.steps) +
         kv_bytes_per_position * static_cast<double>(run.positions_read) +
         state_bytes * static_cast<double>(run.sequence_steps);
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

double measure_read_bandwidth(std::size_t bytes, int threads) {
  using Clock = std::chrono::steady_clock;
  threads = std::clamp(threads, 1, 64);
  const std::size_t lanes = std::max<std::size_t>(std::min(bytes, kMostMeasuredBytes) / sizeof(Lane), 1024);
  const std::unique_ptr<Lane[]> buffer(new Lane[lanes]);
  std::memset(static_cast<void*>(buffer.get()), 1, lanes * sizeof(Lane));  // every page backed before timing
  std::atomic<std::uint64_t> sink{0};
  // Each reader times its own part: a pass lasts from the first reader's start to the last one's end. (Timed from
  // the coordinating thread, a pass looked instantaneous whenever that thread was descheduled while the readers ran.)
  std::vector<Clock::time_point> began(static_cast<std::size_t>(threads)), ended(began.size());
  double best_s = 0.0;
  std::barrier start(threads + 1), done(threads + 1);
  std::vector<std::jthread> readers;
  for (int t = 0; t < threads; ++t) {
    readers.emplace_back([&, t] {
      const std::size_t from = lanes * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
      const std::size_t to = lanes * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
      for (int pass = 0; pass <= kPasses; ++pass) {
        start.arrive_and_wait();
        began[static_cast<std::size_t>(t)] = Clock::now();
        sink += read_all(buffer.get() + from, to - from);
        ended[static_cast<std::size_t>(t)] = Clock::now();
        done.arrive_and_wait();
      }
    });
  }
  for (int pass = 0; pass <= kPasses; ++pass) {  // pass 0 warms the caches and the threads
    start.arrive_and_wait();
    done.arrive_and_wait();
    const double s = std::chrono::duration<double>(*std::max_element(ended.begin(), ended.end()) -
                                                   *std::min_element(began.begin(), began.end()))
                         .count();
    if (pass > 0 && s > 0.0 && (best_s == 0.0 || s < best_s)) best_s = s;
  }
  readers.clear();
  return best_s > 0.0 ? static_cast<double>(lanes * sizeof(Lane)) / best_s : 0.0;
}

std::string beyond_physical_floor(const jobs::ModelSpec& model, std::span<const ServingResult> runs, double bytes_per_s,
                                  WeightPrecision precision, ActivationPrecision activations) {
  if (bytes_per_s <= 0.0) return "";
  std::string all, beyond;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const double bytes = least_bytes_read(model, runs[r], precision, activations);
    const double floor_ms = bytes / bytes_per_s * 1e3;
    all += (r ? ", " : "") + ms(runs[r].total_ms);
    if (!beyond.empty() || runs[r].total_ms * kFloorMargin >= floor_ms) continue;
    std::ostringstream text;
    text.precision(3);
    text << "timed run " << r + 1 << " served in " << ms(runs[r].total_ms) << ", below its physical floor of "
         << ms(floor_ms) << " (it read at least " << bytes / 1e6 << " MB: every weight once per step for "
         << runs[r].steps << " steps, and the KV positions of " << runs[r].sequence_steps
         << " sequences; this node reads " << bytes_per_s / 1e9 << " GB/s, the run would need "
         << bytes / (runs[r].total_ms * 1e-3) / 1e9 << " GB/s, more than " << kFloorMargin << " x that)";
    beyond = text.str();
  }
  return beyond.empty() ? "" : "faster than physically possible: " + beyond + "; every timed run: " + all;
}

double bandwidth_fraction(const jobs::ModelSpec& model, const ServingResult& run, double bytes_per_s,
                          WeightPrecision precision, ActivationPrecision activations) {
  if (bytes_per_s <= 0.0 || run.total_ms <= 0.0) return 0.0;
  return least_bytes_read(model, run, precision, activations) / bytes_per_s * 1e3 / run.total_ms;
}

}  // namespace kforge::kernels::engine
