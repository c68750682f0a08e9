// The harness's kf_pick (cuda_engine_pick.hpp): each served step's logit rows reduced on the device to what serve()
// keeps. Its ptxas figures on both targets; on the CPU emulation (a FAKE GPU), every adversarial row reduced exactly
// as the harness's pick_rows (serving_loop.hpp) reduces it, and each mutation of its arithmetic caught; a plan asked
// for picked rows brings back those of its own logits; the secret columns never sit in device memory while a kernel
// of the candidate runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "cuda_engine_pick.hpp"
#include "cuda_engine_source.hpp"
#include "cuda_engine_test_support.hpp"
#include "emulated_engine_device.hpp"
#include "emulated_module.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "module_compile.hpp"
#include "ptxas_log.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

using kernels::engine::pick_rows;
using kernels::engine::PickedRows;
using testing::ScratchDir;

std::uint64_t address(const void* p) { return reinterpret_cast<std::uint64_t>(p); }

// Rows of `vocab` logits that each test one rule of pick_rows: ties to the lowest index (within a chunk, across
// chunks, +0 against -0, a whole row alike), a maximum at either end of a chunk or of the row, and values that are
// not finite in the last chunk, at a chunk's end and at the first index.
std::vector<float> adversarial_rows(std::int64_t vocab, std::int64_t& rows) {
  const auto v = static_cast<std::size_t>(vocab);
  std::mt19937 rng(static_cast<unsigned>(vocab));
  std::normal_distribution<float> normal(0.f, 3.f);
  std::vector<std::vector<float>> out;
  const auto random_row = [&] {
    std::vector<float> r(v);
    for (float& x : r) x = normal(rng);
    return r;
  };
  const auto at = [&](double fraction) { return std::min(v - 1, static_cast<std::size_t>(fraction * vocab)); };
  std::vector<float> r = random_row();  // the same maximum three times: the first wins
  for (double f : {0.55, 0.67, 0.94}) r[at(f)] = 40.f;
  out.push_back(r);
  out.emplace_back(v, 1.5f);  // every index ties
  r.assign(v, -2.f);          // -0 ties +0 (equal as floats): the lower index wins whichever sign it has
  r[at(0.8)] = 0.f;
  r[at(0.01)] = -0.f;
  out.push_back(r);
  r = random_row();
  for (float& x : r) x = -100.f - std::abs(x);
  r[v - 1] = -1.f;  // the last index, all negative
  out.push_back(r);
  for (std::size_t end = kPickChunk - 1; end < v; end += kPickChunk) {  // a chunk's last index, tied with the next
    r = random_row();
    r[end] = 50.f;
    if (end + 1 < v) r[end + 1] = 50.f;
    out.push_back(r);
  }
  r = random_row();
  r[v - 2] = std::numeric_limits<float>::quiet_NaN();
  out.push_back(r);
  r = random_row();
  r[std::min<std::size_t>(v - 1, kPickChunk - 1)] = std::numeric_limits<float>::infinity();
  out.push_back(r);
  r = random_row();
  r[0] = -std::numeric_limits<float>::infinity();
  out.push_back(r);
  rows = static_cast<std::int64_t>(out.size());
  std::vector<float> flat;
  for (const auto& row : out) flat.insert(flat.end(), row.begin(), row.end());
  return flat;
}

std::vector<std::uint32_t> columns_of(std::int64_t vocab) {
  std::vector<std::uint32_t> c;
  for (std::int64_t x : {std::int64_t{0}, std::int64_t{1}, vocab / 3, kPickChunk - 1, kPickChunk, vocab - 2, vocab - 1})
    if (x >= 0 && x < vocab && (c.empty() || static_cast<std::uint32_t>(x) > c.back()))
      c.push_back(static_cast<std::uint32_t>(x));
  return c;
}

// kf_pick_part then kf_pick_row of `source` on the emulation, as the plan launches them.
PickedRows picked_on_emulation(const std::string& source, std::span<const float> logits, std::int64_t vocab,
                               std::int64_t rows, std::span<const std::uint32_t> columns, const ScratchDir& scratch) {
  EmulatedModule m(source, {}, {std::string(kPickPart), std::string(kPickRow)}, scratch.sub("pick"));
  const std::int64_t chunks = pick_chunks(vocab);
  std::vector<float> part_value(static_cast<std::size_t>(rows * chunks));
  std::vector<std::int32_t> part_index(part_value.size());
  std::vector<std::uint32_t> words(static_cast<std::size_t>(rows * picked_words(std::ssize(columns))), 0xdeadbeefu);
  KernelArgs part;
  part.pointer(address(logits.data()))
      .i32(static_cast<int>(vocab))
      .pointer(address(part_value.data()))
      .pointer(address(part_index.data()));
  m.launch(kPickPart, pick_part_launch(vocab, rows), part);
  KernelArgs row;
  row.pointer(address(logits.data()))
      .i32(static_cast<int>(vocab))
      .pointer(address(part_value.data()))
      .pointer(address(part_index.data()))
      .i32(static_cast<int>(chunks))
      .pointer(address(columns.data()))
      .i32(static_cast<int>(columns.size()))
      .pointer(address(words.data()));
  m.launch(kPickRow, pick_row_launch(rows), row);
  return picked_rows_of(words, columns.size());
}

// "" when `got` is `want` bit for bit (a NaN kept where the row is not finite is not compared); else the first
// difference.
std::string difference(const PickedRows& want, const PickedRows& got, std::size_t columns) {
  if (want.greedy.size() != got.greedy.size()) return "a different number of rows";
  for (std::size_t r = 0; r < want.greedy.size(); ++r) {
    if (want.greedy[r] != got.greedy[r])
      return "row " + std::to_string(r) + ": token " + std::to_string(got.greedy[r]) + ", the harness's " +
             std::to_string(want.greedy[r]);
    for (std::size_t c = 0; c <= columns; ++c) {
      const float a = want.kept[r * (columns + 1) + c], b = got.kept[r * (columns + 1) + c];
      if (want.greedy[r] < 0 && c == columns) continue;  // the top of a row that is not finite is not kept
      if (std::memcmp(&a, &b, sizeof a) != 0 && !(std::isnan(a) && std::isnan(b)))
        return "row " + std::to_string(r) + " kept value " + std::to_string(c) + ": " + std::to_string(b) +
               ", the harness's " + std::to_string(a);
    }
  }
  return "";
}

TEST(CudaEnginePick, TheHarnessKernelsCompileForBothTargetsWithoutSpilling) {
  for (const char* target : {"hopper", "blackwell"}) {
    ScratchDir scratch;
    const ArchSpec& arch = arch_for_target(target);
    const ModuleBuild built = build_module({pick_module_source(),
                                            "pick-test",
                                            &arch,
                                            {},
                                            {},
                                            scratch.sub("cache"),
                                            scratch.sub("work"),
                                            120.0,
                                            CompileIn::this_process});
    ASSERT_TRUE(built.entry && built.entry->ok) << target << ": " << built.failure;
    for (std::string_view k : {kPickPart, kPickRow}) {
      const auto f = figures_for_entry(built.entry->log, k);
      ASSERT_TRUE(f.has_value()) << target << " " << k << "\n" << built.entry->log;
      // __launch_bounds__(256) alone made ptxas for sm_100a keep kf_pick_part at 40 registers with 4 bytes spilled.
      EXPECT_EQ(f->spill_store_bytes, 0) << target << " " << k << "\n" << built.entry->log;
      EXPECT_EQ(f->stack_frame_bytes, 0) << target << " " << k;
      EXPECT_LE(std::int64_t{f->registers} * kPickThreads, arch.registers_per_sm) << target << " " << k;
    }
  }
}

TEST(CudaEnginePick, EveryRowIsReducedOnTheDeviceAsTheHarnessReducesIt) {
  ScratchDir scratch;
  for (const std::int64_t vocab : {std::int64_t{300}, 2 * kPickChunk, 2 * kPickChunk + 809}) {
    std::int64_t rows = 0;
    const std::vector<float> logits = adversarial_rows(vocab, rows);
    const std::vector<std::uint32_t> columns = columns_of(vocab);
    const PickedRows want = pick_rows(logits, vocab, columns);
    const PickedRows got = picked_on_emulation(pick_module_source(), logits, vocab, rows, columns, scratch);
    EXPECT_EQ(difference(want, got, columns.size()), "") << "vocab " << vocab;
    const PickedRows greedy_only = picked_on_emulation(pick_module_source(), logits, vocab, rows, {}, scratch);
    EXPECT_EQ(difference(pick_rows(logits, vocab, {}), greedy_only, 0), "") << "vocab " << vocab << ", no columns";
  }
}

TEST(CudaEnginePick, EachMutationOfItsArithmeticIsCaught) {
  const std::vector<std::pair<std::string, std::string>> mutations = {
      {"(a == b && ai < bi)", "(a == b && ai > bi)"},        // ties to the last index
      {"== 0x7f800000u ? 1 : 0", "== 0x7f800000u ? 0 : 0"},  // values that are not finite pass
      {"if (i >= vocab) continue;", "if (i >= vocab || j == KF_PICK_LOADS - 1) continue;"},  // a load unused
      {"c < chunks; c += KF_PICK_THREADS", "c + 1 < chunks; c += KF_PICK_THREADS"},          // the last chunk
      {"__float_as_uint(row[columns[c]])", "__float_as_uint(row[columns[c] ^ 1u])"},         // a column's neighbour
  };
  ScratchDir scratch;
  for (const auto& [from, to] : mutations) {
    std::string source = pick_module_source();
    ASSERT_NE(source.find(from), std::string::npos) << from;
    source.replace(source.find(from), from.size(), to);
    bool caught = false;
    for (const std::int64_t vocab : {std::int64_t{300}, 2 * kPickChunk + 809}) {
      std::int64_t rows = 0;
      const std::vector<float> logits = adversarial_rows(vocab, rows);
      const std::vector<std::uint32_t> columns = columns_of(vocab);
      const PickedRows got = picked_on_emulation(source, logits, vocab, rows, columns, scratch);
      caught = caught || !difference(pick_rows(logits, vocab, columns), got, columns.size()).empty();
    }
    EXPECT_TRUE(caught) << "not caught: " << from << " -> " << to;
  }
}

// An EngineDevice in front of the emulation that checks, at every launch of the candidate's module and every replay
// of its graph, that the columns the harness uploaded for kf_pick, and kf_pick_row's output (the values at them),
// are wiped (zero) in device memory.
class ColumnsWatch final : public EngineDevice {
 public:
  explicit ColumnsWatch(std::unique_ptr<EngineDevice> inner) : inner_(std::move(inner)) {}
  std::uint64_t allocate(std::size_t bytes) override { return inner_->allocate(bytes); }
  void upload(std::uint64_t to, const void* from, std::size_t bytes) override {
    last_upload_ = {to, bytes};
    inner_->upload(to, from, bytes);
  }
  void download(void* to, std::uint64_t from, std::size_t bytes) override {
    if (picked_) kept_ = {from, bytes};  // the first download after kf_pick_row: its output
    picked_ = false;
    inner_->download(to, from, bytes);
  }
  void fill(std::uint64_t to, unsigned char value, std::size_t bytes) override { inner_->fill(to, value, bytes); }
  void launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) override {
    expect_wiped(name);
    inner_->launch(name, l, args);
  }
  void launch_harness(std::string_view name, const LaunchConfig& l, KernelArgs& args) override {
    if (name == kPickPart) columns_ = last_upload_;  // the plan uploads the columns right before kf_pick_part
    picked_ = name == kPickRow;
    inner_->launch_harness(name, l, args);
    ++harness_launches_;
  }
  void begin_marks() override { inner_->begin_marks(); }
  int mark() override { return inner_->mark(); }
  double elapsed_ms(int from, int to) override { return inner_->elapsed_ms(from, to); }
  int capture(const std::function<void()>& enqueue) override { return inner_->capture(enqueue); }
  void replay(int graph) override {
    expect_wiped("a graph");
    inner_->replay(graph);
  }
  void synchronize() override { inner_->synchronize(); }
  double used_memory_mib() override { return inner_->used_memory_mib(); }
  double copy_bandwidth(std::size_t bytes) override { return inner_->copy_bandwidth(bytes); }

  std::size_t columns_bytes_seen = 0;
  int harness_launches_ = 0, checked_ = 0;

 private:
  void expect_wiped(std::string_view what) {
    if (columns_.second == 0 || kept_.second == 0) return;
    columns_bytes_seen = std::max(columns_bytes_seen, columns_.second);
    const auto zero = [](std::pair<std::uint64_t, std::size_t> at) {
      const auto* p = reinterpret_cast<const unsigned char*>(at.first);  // the emulation's memory is the host's
      return std::all_of(p, p + at.second, [](unsigned char b) { return b == 0; });
    };
    EXPECT_TRUE(zero(columns_)) << "the secret columns are in device memory when " << what << " runs";
    EXPECT_TRUE(zero(kept_)) << "the values at the secret columns are in device memory when " << what << " runs";
    ++checked_;
  }
  std::unique_ptr<EngineDevice> inner_;
  std::pair<std::uint64_t, std::size_t> columns_{0, 0}, last_upload_{0, 0}, kept_{0, 0};
  bool picked_ = false;
};

// Two plans of one module serve the same steps (a prefill of two requests, then decodes replayed as graphs): one
// asked for whole rows, one for picked rows. The picked rows are those of the whole rows, bit for bit.
TEST(CudaEnginePick, APlanAskedForPickedRowsBringsBackThoseOfItsLogits) {
  ScratchDir scratch;
  const jobs::EvalSettings s = testing::settings("llama");
  const jobs::ModelSpec& model = s.engine.model;
  CudaEngineParams p = cuda_engine_params(testing::genome_with({{"decode_graphs", 1}, {"GEMV_ROWS", 2}}));
  const ModuleImage image{{}, {}, render_cuda_engine_source(p), CudaEngineBackend::layout_defines(model, p), nullptr};
  const kernels::engine::Weights weights = kernels::engine::load_weights(model);
  const EngineSizes sizes{2, 64, 2, 32};
  EmulatedEngineDevice whole_device(image, scratch.sub("emulated"));
  ColumnsWatch picked_device(std::make_unique<EmulatedEngineDevice>(image, scratch.sub("emulated")));
  CudaEnginePlan whole(whole_device, model, weights, p, sizes);
  CudaEnginePlan picked(picked_device, model, weights, p, sizes);
  const std::vector<std::uint32_t> columns{0, 3, 77, 128, 255};
  std::vector<kernels::engine::SeqDesc> seqs{{0, 0, 5}, {1, 0, 3}};
  std::vector<std::int32_t> tokens{1, 2, 3, 4, 5, 6, 7, 8};
  for (int step = 0; step < 6; ++step) {
    const auto a = whole.step(seqs, tokens, kernels::engine::RowWants{});
    const auto b = picked.step(seqs, tokens, kernels::engine::RowWants{false, columns});
    EXPECT_TRUE(b.logits.empty());
    EXPECT_EQ(difference(pick_rows(a.logits, model.vocab, columns), b.picked, columns.size()), "") << "step " << step;
    EXPECT_GT(b.ms, 0.0);
    tokens.clear();
    for (std::size_t q = 0; q < seqs.size(); ++q) {
      seqs[q] = {seqs[q].slot, seqs[q].start_position + seqs[q].token_count, 1};
      tokens.push_back(b.picked.greedy[q]);
    }
  }
  EXPECT_EQ(picked_device.harness_launches_, 2 * 6);
  EXPECT_EQ(picked_device.columns_bytes_seen, columns.size() * sizeof(std::uint32_t));
  EXPECT_GT(picked_device.checked_, 5);
}

// A module whose LM head writes one NaN, at a column no sampler asked for: the step's picked rows say so (token -1),
// which serve() turns into its failure, as when it checked whole rows on the host.
TEST(CudaEnginePick, ALogitThatIsNotFiniteAwayFromTheColumnsIsFoundOnTheDevice) {
  ScratchDir scratch;
  const jobs::EvalSettings s = testing::settings("llama");
  const jobs::ModelSpec& model = s.engine.model;  // vocab 256: with gate and up apart, only the head is that wide
  const CudaEngineParams p = cuda_engine_params(testing::genome_with({{"fuse_gate_up", 0}}));
  std::string source = render_cuda_engine_source(p);
  const std::string from = "const float v = acc[i][j] * scale";
  ASSERT_NE(source.find(from), std::string::npos);
  source.replace(source.find(from), from.size(),
                 "const float v = (N == 256 && n == 200) ? __uint_as_float(0x7fc00000u) : acc[i][j] * scale");
  const ModuleImage image{{}, {}, source, CudaEngineBackend::layout_defines(model, p), nullptr};
  EmulatedEngineDevice device(image, scratch.sub("emulated"));
  CudaEnginePlan plan(device, model, kernels::engine::load_weights(model), p, EngineSizes{2, 64, 2, 32});
  const std::vector<std::uint32_t> columns{0, 3, 77};
  const auto r = plan.step(std::vector<kernels::engine::SeqDesc>{{0, 0, 2}, {1, 0, 1}},
                           std::vector<std::int32_t>{1, 2, 3}, kernels::engine::RowWants{false, columns});
  EXPECT_EQ(r.picked.greedy, (std::vector<std::int32_t>{-1, -1}));
  EXPECT_TRUE(std::all_of(r.picked.kept.begin(), r.picked.kept.begin() + 3, [](float x) { return std::isfinite(x); }));
}

}  // namespace
}  // namespace kforge::kernels::cuda::engine
