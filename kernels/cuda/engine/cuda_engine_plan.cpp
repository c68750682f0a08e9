#include "cuda_engine_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "cuda_engine_kv_blocks.hpp"
#include "cuda_engine_pick.hpp"
#include "cuda_engine_weights.hpp"
#include "kforge/engine/engine_abi.hpp"
#include "kforge/engine/rope.hpp"
#include "kforge/engine/served_checks.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

namespace abi = kernels::engine;

enum Op : int { kEmbed, kNorm, kQkv, kAttention, kKda, kOProj, kMlp, kLmHead };

std::size_t floats(std::int64_t n) { return static_cast<std::size_t>(n) * sizeof(float); }

// RoPE's cos and sin of p * inv_freq[i] (rope.hpp) for every position and pair, in double, then rounded once.
void rope_tables(const jobs::ModelSpec& m, std::int64_t context, std::vector<float>& cos_t, std::vector<float>& sin_t) {
  const std::int64_t half = m.head_dim / 2;
  const std::vector<double> inv_freq = abi::rope_inverse_frequencies(m);
  cos_t.resize(static_cast<std::size_t>(context * half));
  sin_t.resize(cos_t.size());
  for (std::int64_t p = 0; p < context; ++p)
    for (std::int64_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(p) * inv_freq[static_cast<std::size_t>(i)];
      cos_t[static_cast<std::size_t>(p * half + i)] = static_cast<float>(std::cos(angle));
      sin_t[static_cast<std::size_t>(p * half + i)] = static_cast<float>(std::sin(angle));
    }
}

}  // namespace

struct CudaEnginePlan::Impl {
  EngineDevice& device;
  jobs::ModelSpec model;
  CudaEngineParams p;
  EngineSizes sizes;
  GemmFn gemm;
  DeviceWeights w;
  KvBlocks blocks;
  std::vector<std::int64_t> positions;  // tokens each slot holds
  // Activations, sized for the largest step.
  std::uint64_t x = 0, h = 0, proj = 0, att = 0, tmp = 0, gu = 0, act = 0, inv_rms = 0, last = 0, last_normed = 0;
  std::uint64_t logits = 0, rope_cos = 0, rope_sin = 0, ints = 0, block_table = 0;
  // kf_pick's buffers: each chunk's best, the asked columns, what comes back (cuda_engine_pick.hpp).
  std::uint64_t pick_value = 0, pick_index = 0, pick_columns = 0, pick_out = 0;
  std::size_t pick_capacity = 0;                       // columns
  std::vector<std::uint64_t> k_cache, v_cache, state;  // per layer (0 where the layer has none)
  std::vector<std::pair<int, int>> marks;              // (operator, mark) in stream order
  // decode_graphs: each batch size's decode step as a graph, with the marks its capture recorded.
  struct DecodeGraph {
    int graph = 0;
    std::vector<std::pair<int, int>> marks;
  };
  std::map<int, DecodeGraph> decode_graphs;  // by sequences

  Impl(EngineDevice& d, const jobs::ModelSpec& m, const abi::Weights& weights, const CudaEngineParams& params,
       const EngineSizes& z, GemmFn g)
      : device(d),
        model(m),
        p(params),
        sizes(z),
        gemm(std::move(g)),
        w(upload_weights(d, m, weights, params)),
        blocks(z.slots, z.max_context, params.kv_block),
        positions(static_cast<std::size_t>(z.slots), 0) {
    if (z.slots < 1 || z.max_context < 1 || z.most_sequences < 1 || z.most_tokens < 1)
      throw std::invalid_argument("cuda engine: every engine size must be at least 1");
    const std::int64_t N = z.most_tokens, S = z.most_sequences, H = m.hidden;
    std::int64_t in_width = 0;
    for (const DeviceLayer& l : w.layers) in_width = std::max<std::int64_t>(in_width, l.in_width);
    x = d.allocate(floats(N * H));
    h = d.allocate(floats(N * H));
    tmp = d.allocate(floats(N * H));
    proj = d.allocate(floats(N * in_width));
    att = d.allocate(floats(N * m.heads * m.head_dim));
    gu = d.allocate(floats(N * 2 * m.mlp_hidden));
    act = d.allocate(floats(N * m.mlp_hidden));
    inv_rms = d.allocate(floats(std::max(N, S)));
    last = d.allocate(floats(S * H));
    last_normed = d.allocate(floats(S * H));
    logits = d.allocate(floats(S * m.vocab));
    pick_value = d.allocate(floats(S * pick_chunks(m.vocab)));
    pick_index = d.allocate(static_cast<std::size_t>(S * pick_chunks(m.vocab)) * sizeof(std::int32_t));
    pick_capacity = static_cast<std::size_t>(std::min(m.vocab, abi::kSampledColumns));
    pick_columns = d.allocate(pick_capacity * sizeof(std::uint32_t) + sizeof(std::uint32_t));
    pick_out = d.allocate(static_cast<std::size_t>(S * picked_words(abi::kSampledColumns)) * sizeof(std::uint32_t));
    ints = d.allocate(static_cast<std::size_t>(3 * N + 5 * S) * sizeof(std::int32_t));
    block_table = d.allocate(blocks.table().size() * sizeof(std::int32_t) + sizeof(std::int32_t));
    std::vector<float> cos_t, sin_t;
    rope_tables(m, z.max_context, cos_t, sin_t);
    rope_cos = d.allocate(floats(static_cast<std::int64_t>(cos_t.size())));
    rope_sin = d.allocate(floats(static_cast<std::int64_t>(sin_t.size())));
    d.upload(rope_cos, cos_t.data(), floats(static_cast<std::int64_t>(cos_t.size())));
    d.upload(rope_sin, sin_t.data(), floats(static_cast<std::int64_t>(sin_t.size())));
    // The module's kv_t: bf16 with bf16 activations (docs/engines.md, "Activations"), else fp32.
    const std::size_t cache_bytes =
        static_cast<std::size_t>(blocks.rows() * m.kv_heads * m.head_dim) * abi::kv_value_bytes(p.activations);
    for (const DeviceLayer& l : w.layers) {
      k_cache.push_back(l.attention ? d.allocate(cache_bytes) : 0);
      v_cache.push_back(l.attention ? d.allocate(cache_bytes) : 0);
      state.push_back(l.attention ? 0 : d.allocate(floats(z.slots * m.heads * m.head_dim * m.head_dim)));
    }
    if (!gemm) gemm = [this](const GemmCall& c) { module_gemm(c); };
  }

  void module_gemm(const GemmCall& c) {
    KernelArgs args;
    args.pointer(c.a)
        .i32(c.lda)
        .pointer(c.w)
        .pointer(c.c)
        .i32(c.ldc)
        .i32(c.m)
        .i32(c.n)
        .i32(c.k)
        .pointer(c.row_scale)
        .i32(c.accumulate ? 1 : 0)
        .pointer(c.col_scale)  // from here on: a module written before int8 weights declares fewer parameters
        .i32(c.norm ? 1 : 0)
        .pointer(c.norm_gamma)
        .f32(c.norm_eps)
        .i32(c.silu ? 1 : 0);
    if ((c.norm || c.silu) && !p.gemv_for(c.m))
      throw std::logic_error("cuda engine: a fused norm or SiLU reached kf_gemm");
    if (p.gemv_for(c.m))
      device.launch("kf_gemv", gemv_launch(p, c.n), args);  // the same arguments, the same result
    else if (p.tc_for(c.m))
      device.launch("kf_gemm_tc", gemm_tc_launch(c.m, c.n), args);  // it reads the first ten
    else
      device.launch("kf_gemm", gemm_launch(p, c.m, c.n), args);
  }

  void op_done(int op) { marks.emplace_back(op, device.mark()); }

  // The device address of one of the step's integer tables (cuda_engine_kv_blocks.hpp).
  std::uint64_t table(StepTable t, std::int64_t N, std::int64_t S) const {
    return ints + static_cast<std::uint64_t>(step_table_offset(t, N, S)) * sizeof(std::int32_t);
  }

  // Before a group of projections that write (not add to) `rows` rows of `width` floats: split-K blocks add into
  // their output, so it starts at zero.
  void zero_for_split_k(std::uint64_t out, std::int64_t rows, std::int64_t width) {
    if (p.SPLIT_K > 1) device.fill(out, 0, floats(rows * width));
  }

  // What the projections after a norm read: the normed rows (kf_rmsnorm into `to`, or only 1 / rms as their row scale
  // when gamma is folded), or with GEMV_NORM on a step kf_gemv serves, the raw rows and the norm for kf_gemv to apply.
  struct NormedInput {
    std::uint64_t rows = 0, row_scale = 0;
    bool fused = false;
    std::uint64_t gamma = 0;
  };
  NormedInput normed(std::uint64_t from, std::uint64_t gamma, std::uint64_t to, int rows) {
    if (p.GEMV_NORM && p.gemv_for(rows)) return {from, 0, true, gamma};
    return {norm(from, gamma, to, rows), gamma ? 0 : inv_rms, false, 0};
  }

  GemmCall call_for(const DeviceMatrix& m, const NormedInput& in, int lda, std::uint64_t out, int ldc, int rows) const {
    GemmCall c{in.rows, m.address, out, in.row_scale, lda, ldc, rows, m.n, m.k, false, m.scales};
    c.norm = in.fused;
    c.norm_gamma = in.gamma;
    c.norm_eps = static_cast<float>(model.norm_eps);
    return c;
  }

  void project(const std::vector<DeviceMatrix>& group, const NormedInput& in, int lda, std::uint64_t out, int ldc,
               int rows) {
    for (const DeviceMatrix& m : group) gemm(call_for(m, in, lda, out + floats(m.column), ldc, rows));
  }

  // RMSNorm of `rows` rows of `from`: into `to` with gamma, or (folded) only 1 / rms for the next GEMM's row scale.
  // Returns the GEMM's input (the normed rows, or the raw ones when folded).
  std::uint64_t norm(std::uint64_t from, std::uint64_t gamma, std::uint64_t to, std::int64_t rows) {
    KernelArgs args;
    args.pointer(from)
        .pointer(gamma)
        .pointer(gamma ? to : 0)
        .pointer(gamma ? 0 : inv_rms)
        .i32(static_cast<int>(model.hidden))
        .f32(static_cast<float>(model.norm_eps));
    device.launch("kf_rmsnorm", rows_launch(p, rows), args);
    op_done(kNorm);
    return gamma ? to : from;
  }

  // out (the residual stream x) += W `in`: in the GEMM's epilogue, or through tmp and kf_add.
  void residual_projection(const DeviceMatrix& m, std::uint64_t in, int ld, int rows) {
    const int H = static_cast<int>(model.hidden);
    if (p.residual_epilogue) {
      gemm({in, m.address, x, 0, ld, H, rows, m.n, m.k, true, m.scales});
      return;
    }
    zero_for_split_k(tmp, rows, H);
    gemm({in, m.address, tmp, 0, ld, H, rows, m.n, m.k, false, m.scales});
    KernelArgs args;
    args.pointer(x).pointer(tmp).i32(rows * H);
    device.launch("kf_add", elementwise_launch(p, static_cast<std::int64_t>(rows) * H), args);
  }

  void layer(std::size_t l, int N, int S) {
    const DeviceLayer& L = w.layers[l];
    const int H = static_cast<int>(model.hidden), HD = static_cast<int>(model.heads * model.head_dim);
    const int F = static_cast<int>(model.mlp_hidden), ctx = static_cast<int>(sizes.max_context);
    const NormedInput in = normed(x, L.in_gamma, h, N);
    zero_for_split_k(proj, N, L.in_width);
    project(L.in_proj, in, H, proj, L.in_width, N);
    op_done(kQkv);
    const std::uint64_t tok_slot = table(StepTable::tok_slot, N, S), tok_pos = table(StepTable::tok_pos, N, S);
    const float attn_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(model.head_dim)));
    if (L.attention) {
      KernelArgs rope;
      rope.pointer(proj)
          .i32(L.in_width)
          .i32(static_cast<int>(model.heads))
          .i32(static_cast<int>(model.kv_heads))
          .pointer(tok_slot)
          .pointer(tok_pos)
          .pointer(rope_cos)
          .pointer(rope_sin)
          .pointer(k_cache[l])
          .pointer(v_cache[l])
          .i32(ctx)
          .pointer(block_table)
          .i32(static_cast<int>(blocks.table_width()));
      device.launch("kf_rope_cache", rows_launch(p, N), rope);
      KernelArgs attn;
      attn.pointer(proj)
          .i32(L.in_width)
          .pointer(att)
          .i32(static_cast<int>(model.heads))
          .i32(static_cast<int>(model.kv_heads))
          .pointer(tok_slot)
          .pointer(tok_pos)
          .pointer(k_cache[l])
          .pointer(v_cache[l])
          .i32(ctx)
          .pointer(block_table)
          .i32(static_cast<int>(blocks.table_width()))
          .f32(attn_scale);
      if (p.tiled_attention_for(model.heads, model.kv_heads) && N > S) {  // a step that feeds a prompt
        attn.i32(qtile_queries(model)).i32(N);  // the same arguments, then the tile's tokens and the step's
        device.launch("kf_attention_tiles", attention_tiles_launch(p, N, model), attn);
      } else if (p.group_attention_for(model.heads, model.kv_heads))
        device.launch("kf_attention_group", attention_launch(p, N, model.kv_heads), attn);  // the same arguments
      else
        device.launch("kf_attention", attention_launch(p, N, model.heads), attn);
      op_done(kAttention);
    } else {
      KernelArgs kda;
      kda.pointer(proj)
          .i32(L.in_width)
          .pointer(att)
          .i32(static_cast<int>(model.heads))
          .pointer(table(StepTable::seq_slot, N, S))
          .pointer(table(StepTable::seq_start, N, S))
          .pointer(table(StepTable::seq_count, N, S))
          .pointer(table(StepTable::seq_row, N, S))
          .pointer(state[l])
          .f32(attn_scale);
      device.launch("kf_kda", kda_launch(S, model.heads, model.head_dim), kda);
      op_done(kKda);
    }
    residual_projection(L.o, att, HD, N);
    op_done(kOProj);
    const NormedInput post = normed(x, L.post_gamma, h, N);
    if (p.silu_in_gemv_for(N)) {  // kf_gemv writes SiLU(gate) * up itself
      GemmCall c = call_for(L.gate_up.front(), post, H, act, F, N);
      c.n = F;
      c.silu = true;
      gemm(c);
    } else {
      zero_for_split_k(gu, N, 2 * F);
      project(L.gate_up, post, H, gu, 2 * F, N);
      KernelArgs silu;
      silu.pointer(gu).pointer(act).i32(F);
      device.launch("kf_silu_mul", rows_launch(p, N), silu);
    }
    residual_projection(L.down, act, F, N);
    op_done(kMlp);
  }

  // The harness's reduction of the step's S rows of logits (cuda_engine_pick.hpp), downloaded into `words` at the
  // next synchronize(). The secret columns are on the device only from after the candidate's kernels (the copy is
  // ordered after them on the stream) until kf_pick_row has read them, and its output (the values at those columns,
  // from which a module that kept its logits could find them) until it is copied out: both wipes follow.
  void pick(int S, std::span<const std::uint32_t> columns, std::vector<std::uint32_t>& words) {
    const std::size_t ncol = columns.size();
    if (ncol > pick_capacity)
      throw std::invalid_argument("cuda engine: " + std::to_string(ncol) + " columns asked of every row, more than " +
                                  std::to_string(pick_capacity));
    const int V = static_cast<int>(model.vocab);
    device.upload(pick_columns, columns.data(), ncol * sizeof(std::uint32_t));
    KernelArgs part;
    part.pointer(logits).i32(V).pointer(pick_value).pointer(pick_index);
    device.launch_harness(kPickPart, pick_part_launch(V, S), part);
    KernelArgs row;
    row.pointer(logits)
        .i32(V)
        .pointer(pick_value)
        .pointer(pick_index)
        .i32(static_cast<int>(pick_chunks(V)))
        .pointer(pick_columns)
        .i32(static_cast<int>(ncol))
        .pointer(pick_out);
    device.launch_harness(kPickRow, pick_row_launch(S), row);
    words.resize(static_cast<std::size_t>(S * picked_words(static_cast<std::int64_t>(ncol))));
    device.download(words.data(), pick_out, words.size() * sizeof(std::uint32_t));
    device.fill(pick_columns, 0, ncol * sizeof(std::uint32_t));
    device.fill(pick_out, 0, words.size() * sizeof(std::uint32_t));
  }

  // The step's kernels from the embedding to the logits, enqueued (or captured) on the device's stream.
  void forward(int N, int S) {
    const int H = static_cast<int>(model.hidden), V = static_cast<int>(model.vocab);
    KernelArgs embed;
    embed.pointer(table(StepTable::tokens, N, S)).pointer(w.embed).pointer(x).i32(H);
    device.launch("kf_embed", rows_launch(p, N), embed);
    op_done(kEmbed);
    for (std::size_t l = 0; l < w.layers.size(); ++l) layer(l, N, S);
    KernelArgs gather;
    gather.pointer(x).pointer(table(StepTable::last_row, N, S)).pointer(last).i32(H);
    device.launch("kf_gather_rows", rows_launch(p, S), gather);
    const NormedInput in = normed(last, w.final_gamma, last_normed, S);
    zero_for_split_k(logits, S, V);
    gemm(call_for(w.head, in, H, logits, V, S));
  }
};

CudaEnginePlan::CudaEnginePlan(EngineDevice& device, const jobs::ModelSpec& model, const abi::Weights& weights,
                               const CudaEngineParams& params, const EngineSizes& sizes, GemmFn gemm)
    : impl_(std::make_unique<Impl>(device, model, weights, params, sizes, std::move(gemm))) {
  device.synchronize();  // the weights are in place before the first step
}

CudaEnginePlan::~CudaEnginePlan() = default;

StepOutcome CudaEnginePlan::step(std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens,
                                 const abi::RowWants& wants) {
  Impl& I = *impl_;
  const StepInts step = step_ints(seqs, tokens, I.model, I.sizes, I.positions, I.blocks);
  const int N = static_cast<int>(tokens.size()), S = static_cast<int>(seqs.size());
  const int V = static_cast<int>(I.model.vocab);
  EngineDevice& d = I.device;
  d.begin_marks();
  I.marks.clear();
  const int first = d.mark();
  d.upload(I.ints, step.values.data(), step.values.size() * sizeof(std::int32_t));
  if (step.table_changed)
    d.upload(I.block_table, I.blocks.table().data(), I.blocks.table().size() * sizeof(std::int32_t));
  d.fill(I.logits, 0xFF, floats(static_cast<std::int64_t>(S) * V));  // NaN wherever no kernel writes
  if (I.p.decode_graphs && N == S) {
    // Every launch of a step depends only on (N, S): its tables are in device memory (ints, block_table).
    auto graph = I.decode_graphs.find(S);
    if (graph == I.decode_graphs.end()) {
      Impl::DecodeGraph g;
      g.graph = d.capture([&] { I.forward(N, S); });
      g.marks = std::move(I.marks);
      graph = I.decode_graphs.emplace(S, std::move(g)).first;
    }
    d.replay(graph->second.graph);
    I.marks = graph->second.marks;
  } else {
    I.forward(N, S);
  }
  StepOutcome out;
  std::vector<std::uint32_t> words;
  if (wants.whole) {
    out.logits.resize(static_cast<std::size_t>(S) * V);
    d.download(out.logits.data(), I.logits, floats(static_cast<std::int64_t>(S) * V));
  } else {
    I.pick(S, wants.columns, words);
  }
  I.op_done(kLmHead);
  d.synchronize();
  if (!wants.whole) out.picked = picked_rows_of(words, wants.columns.size());
  out.ms = d.elapsed_ms(first, I.marks.back().second);
  int previous = first;
  for (const auto& [op, mark] : I.marks) {
    out.op_seconds[static_cast<std::size_t>(op)] += d.elapsed_ms(previous, mark) / 1e3;
    previous = mark;
  }
  return out;
}

}  // namespace kforge::kernels::cuda::engine
