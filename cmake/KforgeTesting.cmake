# Test tiers and labels (docs/testing.md, "Tiers"). Every CTest test carries exactly one tier label, which says
# what it costs and needs (unit, integration, slurm, faults, fuzz, install, bench, repo, tools, gpu, peers,
# bundle_drill, spack, sweep), and any number of area labels (jobs, kernels, engine, python, docs, ...). Labels are set
# per test, never on a folder: a folder's LABELS property would reach every test of every binary in it.

# Every binary of the unit tier (tests/run-sanitizers.sh builds this target under the sanitizers).
if(NOT TARGET kforge_unit_tests)
  add_custom_target(kforge_unit_tests)
endif()

# kforge_add_gtest(NAME SOURCES a.cpp b.cpp LIBS lib1 lib2 [LABELS area1 area2] [TIER tier]
#                  [PROPERTIES name value ...])
# One GoogleTest executable; every TEST becomes its own CTest test, labelled TIER (default unit) and LABELS.
# PROPERTIES are set on each discovered test (single values only; labels go through LABELS).
function(kforge_add_gtest name)
  cmake_parse_arguments(ARG "" "TIER" "SOURCES;LIBS;LABELS;PROPERTIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} kforge_test_support GTest::gtest GTest::gtest_main kforge_warnings)
  target_compile_definitions(${name} PRIVATE
    KFORGE_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KFORGE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  if(NOT ARG_TIER)
    set(ARG_TIER unit)
  endif()
  if(ARG_TIER STREQUAL "unit")
    add_dependencies(kforge_unit_tests ${name})
  endif()
  kforge_discover_gtests(${name} TIER ${ARG_TIER} LABELS ${ARG_LABELS} PROPERTIES ${ARG_PROPERTIES})
endfunction()

# kforge_discover_gtests(TARGET TIER tier [LABELS area1 area2] [PROPERTIES name value ...])
# gtest_discover_tests for a test executable made with add_executable, labelled per test. gtest_discover_tests
# splits a list given in its PROPERTIES (CMake 3.25 keeps the first label only), so the labels are set by a
# script CTest runs after the discovered tests are defined (the folder's TEST_INCLUDE_FILES, in order). That script
# also keeps them off any catalog of finished campaigns, as tests/CMakeLists.txt does for the other tests.
function(kforge_discover_gtests target)
  cmake_parse_arguments(ARG "" "TIER" "LABELS;PROPERTIES" ${ARGN})
  if(NOT ARG_TIER)
    message(FATAL_ERROR "kforge_discover_gtests(${target}): TIER is required (cmake/KforgeTesting.cmake)")
  endif()
  set(extra)
  if(ARG_PROPERTIES)
    set(extra PROPERTIES ${ARG_PROPERTIES})
  endif()
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 TEST_LIST ${target}_TESTS ${extra})
  set(labels ${ARG_TIER} ${ARG_LABELS})
  set(script ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  # Before the binary is built there is no test list (gtest's script adds a ${target}_NOT_BUILT test instead).
  file(WRITE ${script} "if(${target}_TESTS)\n"
                       "  set_tests_properties(\${${target}_TESTS} PROPERTIES LABELS \"${labels}\"\n"
                       "                       ENVIRONMENT_MODIFICATION \"KFORGE_CATALOG=set:none\")\n"
                       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
endfunction()

# kforge_add_test(NAME TIER tier [LABELS area1 area2] COMMAND cmd args... [PROPERTIES name value ...])
# One CTest test (a script or a program run once), labelled like the discovered ones. Other properties go after
# PROPERTIES as set_tests_properties takes them (an ENVIRONMENT list quoted).
function(kforge_add_test name)
  cmake_parse_arguments(ARG "" "TIER;WORKING_DIRECTORY" "LABELS;COMMAND;PROPERTIES" ${ARGN})
  if(NOT ARG_TIER OR NOT ARG_COMMAND)
    message(FATAL_ERROR "kforge_add_test(${name}): TIER and COMMAND are required (cmake/KforgeTesting.cmake)")
  endif()
  if(ARG_WORKING_DIRECTORY)
    add_test(NAME ${name} COMMAND ${ARG_COMMAND} WORKING_DIRECTORY ${ARG_WORKING_DIRECTORY})
  else()
    add_test(NAME ${name} COMMAND ${ARG_COMMAND})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_TIER};${ARG_LABELS}" ${ARG_PROPERTIES})
endfunction()
