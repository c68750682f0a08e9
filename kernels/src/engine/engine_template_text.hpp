#pragma once
// The text of the engine template (engine_template.cpp puts it together around the gemm family's kernel).
#include <string>

#include "engine/engine_template.hpp"

namespace kforge::kernels::engine::text {

// Includes and the genome's constants (the options choose code paths through `if constexpr`).
std::string engine_prelude(const EngineTemplateParams& p);

// The engine itself: engine_setup() (thread pool, projections, weights, caches, kInit; engine_template_text.cpp)
// then engine_step() (the forward step and extern "C" kforge_engine; engine_step_text.cpp).
std::string engine_setup();
std::string engine_step();
std::string engine_body();

}  // namespace kforge::kernels::engine::text
