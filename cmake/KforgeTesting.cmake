# kforge_add_gtest(NAME SOURCES a.cpp b.cpp LIBS lib1 lib2 [LABELS l1 l2])
# One GoogleTest executable; every TEST becomes its own CTest test, labelled.
function(kforge_add_gtest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main kforge_warnings)
  target_compile_definitions(${name} PRIVATE
    KFORGE_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KFORGE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  # Labels go on the calling folder (the LABELS directory property): gtest_discover_tests splits a list given
  # in its PROPERTIES, which would keep only the first label.
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  set_property(DIRECTORY APPEND PROPERTY LABELS ${ARG_LABELS})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
endfunction()
