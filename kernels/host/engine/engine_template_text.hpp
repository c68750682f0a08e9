#pragma once
// The text of the engine template (engine_template.cpp puts it together around the gemm family's kernel).
#include <string>

#include "engine/engine_template.hpp"

namespace kforge::kernels::engine::text {

// Includes and the genome's constants (the options choose code paths through `if constexpr`).
std::string engine_prelude(const EngineTemplateParams& p);

// The engine itself, in this order: engine_threads() (opens namespace eng; the thread pool) and
// engine_weight_loads() and engine_linear() (a Linear's weights at the genome's precision; engine_weights_text.cpp),
// engine_projections() (every Linear on the gemm family's kernel; engine_projection_text.cpp), engine_setup()
// (weights, caches, kInit; engine_template_text.cpp), engine_step_buffers() (norms, projections of a step;
// engine_step_text.cpp), engine_attention() (vector exp, RoPE, attention; engine_attention_text.cpp), engine_kda()
// (KDA: the recurrence, and the prefill through the kda family's kernel when KDA_CHUNK > 0; engine_kda_text.cpp),
// engine_step() (the forward step and extern "C" kforge_engine; engine_step_text.cpp).
std::string engine_threads();
std::string engine_weight_loads(const EngineTemplateParams& p);
std::string engine_linear();
std::string engine_projections();
std::string engine_setup();
std::string engine_step_buffers();
std::string engine_attention();
std::string engine_kda(const EngineTemplateParams& p);
std::string engine_step();
std::string engine_body(const EngineTemplateParams& p);

}  // namespace kforge::kernels::engine::text
