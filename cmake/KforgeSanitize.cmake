# KFORGE_SANITIZE=ON: every target built under AddressSanitizer and UndefinedBehaviorSanitizer, in a build tree of
# its own (build-asan/, made by tests/run-sanitizers.sh; docs/testing.md, "Sanitizers"), to run the unit tests with
# a memory error, a leak or undefined behaviour fatal. The target kforge_unit_tests builds exactly what the unit
# tier runs (cmake/KforgeTesting.cmake adds each unit test binary to it).
# -O1 and no NDEBUG whatever the build type: quick to build, assertions on, stacks still readable.
foreach(config DEBUG RELEASE RELWITHDEBINFO MINSIZEREL)
  set(CMAKE_C_FLAGS_${config} "-O1 -g")
  set(CMAKE_CXX_FLAGS_${config} "-O1 -g")
endforeach()
# -fno-sanitize-recover: a UBSan finding stops the test instead of printing and going on.
add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)
