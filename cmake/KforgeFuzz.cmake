# KFORGE_FUZZ=ON: the libFuzzer targets of tests/fuzz and only the libraries they parse with (jobs/, the
# config, search and agents libraries of scheduler/, and serve/'s request parser and tokenizer), every object under AddressSanitizer and UBSan so that a
# memory error, a leak or undefined behaviour on any input stops the fuzzer with a reproducer.
# Included by the top-level CMakeLists.txt, which then stops: no mpi_eval, tests or benchmarks here, and of kernels/
# and slurm/ only what the scheduler's libraries link; a target not asked for is never built.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "KFORGE_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++ "
                      "-DCMAKE_C_COMPILER=clang in a build tree of its own (tests/fuzz/run-fuzzers.sh does)")
endif()

# Assertions stay on (no NDEBUG) whatever the build type; -O1 and line tables only: quicker to build than -O2 -g
# (CI builds this tree from scratch) that still gives symbolized stacks.
foreach(config DEBUG RELEASE RELWITHDEBINFO MINSIZEREL)
  set(CMAKE_C_FLAGS_${config} "-O1 -gline-tables-only")
  set(CMAKE_CXX_FLAGS_${config} "-O1 -gline-tables-only")
endforeach()

# fuzzer-no-link: coverage instrumentation for the libraries; only the fuzz executables link libFuzzer's main.
# -fno-sanitize-recover: a UBSan finding aborts (libFuzzer counts it as a crash) instead of printing and going on.
set(KFORGE_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all)
add_compile_options(${KFORGE_SANITIZERS} -fsanitize=fuzzer-no-link -fno-omit-frame-pointer)
add_link_options(${KFORGE_SANITIZERS})

add_subdirectory(jobs)
add_subdirectory(kernels)
add_subdirectory(slurm)  # the scheduler's executors link it; nothing here builds it unless a target asks
add_subdirectory(scheduler)
add_subdirectory(serve)  # kforge serve's request parser and tokenizer
add_subdirectory(tests/fuzz)
