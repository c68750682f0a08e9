# What `cmake --install build --prefix P` puts under P besides the binaries (docs/install.md lists it all):
#   share/kforge/{examples,data,agents}   (top-level CMakeLists.txt: they name each other by relative paths)
#   share/kforge/{python,site-configs,slurm,systemd}, share/doc/kforge, share/man, share/bash-completion,
#   share/modulefiles/kforge/VERSION.lua, and the CMake package kforge::jobs (headers + the archive library).
# Man pages and completion are generated at build time from the binaries' --help and docs/ (share/man/,
# share/bash-completion/), so that they cannot drift from what the binaries and docs say.
include(CMakePackageConfigHelpers)
find_package(Python3 3.8 REQUIRED COMPONENTS Interpreter)

# ---- The Python reader: PYTHONPATH=P/share/kforge/python (its tests stay in the source tree).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/share/python/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kforge/python
        FILES_MATCHING PATTERN "*.py" PATTERN "test_*" EXCLUDE PATTERN "__pycache__" EXCLUDE)

# ---- Site configs, sbatch scripts (and the array template compiled into kforge, for admins to read), docs.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/site-configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kforge/site-configs
        FILES_MATCHING PATTERN "*.yaml")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/share/slurm/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kforge/slurm
        USE_SOURCE_PERMISSIONS)
install(FILES ${PROJECT_SOURCE_DIR}/slurm/templates/kforge-array.sbatch.in
        DESTINATION ${CMAKE_INSTALL_DATADIR}/kforge/slurm/templates)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- The systemd unit, with its /usr/local paths (kforged, the docs) turned into the prefix of this install:
# the prefix is only known when `cmake --install --prefix P` runs, so this runs then.
install(CODE "
  set(unit_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/kforge/systemd\")
  file(READ \"${PROJECT_SOURCE_DIR}/share/systemd/kforged.service\" unit)
  string(REPLACE \"/usr/local/bin/\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/\" unit \"\${unit}\")
  string(REPLACE \"/usr/local/share/doc/kforge/\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}/\" unit \"\${unit}\")
  file(MAKE_DIRECTORY \"\${unit_dir}\")
  file(WRITE \"\${unit_dir}/kforged.service\" \"\${unit}\")
  message(STATUS \"Installing: \${unit_dir}/kforged.service (paths under \${CMAKE_INSTALL_PREFIX})\")
")

# ---- Man pages and bash completion, generated from the built binaries' --help and docs/.
set(KFORGE_GENERATED_SHARE ${PROJECT_BINARY_DIR}/share)
set(KFORGE_HELP_ARGS --kforge $<TARGET_FILE:kforge> --kforged $<TARGET_FILE:kforged>
                     --kforge-eval $<TARGET_FILE:kforge-eval>)
set(KFORGE_MAN_SECTIONS kforge.1 kforge-eval.1 kforge-campaign.5 kforge-site.5 kforged.8)
list(TRANSFORM KFORGE_MAN_SECTIONS PREPEND ${KFORGE_GENERATED_SHARE}/man/ OUTPUT_VARIABLE KFORGE_MAN_PAGES)
add_custom_command(
  OUTPUT ${KFORGE_MAN_PAGES}
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/share/man/generate_man_pages.py ${KFORGE_HELP_ARGS}
          --docs ${PROJECT_SOURCE_DIR}/docs --version ${PROJECT_VERSION} --out ${KFORGE_GENERATED_SHARE}/man
  DEPENDS kforge kforged kforge-eval ${PROJECT_SOURCE_DIR}/share/man/generate_man_pages.py
          ${PROJECT_SOURCE_DIR}/share/man/markdown_roff.py ${PROJECT_SOURCE_DIR}/cmake/kforge_help.py
          ${PROJECT_SOURCE_DIR}/docs/cli.md ${PROJECT_SOURCE_DIR}/docs/daemon.md
          ${PROJECT_SOURCE_DIR}/docs/campaign-schema.md ${PROJECT_SOURCE_DIR}/docs/site-schema.md
  COMMENT "Man pages from the binaries' --help and docs/")
set(KFORGE_COMPLETION ${KFORGE_GENERATED_SHARE}/bash-completion/kforge)
add_custom_command(
  OUTPUT ${KFORGE_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${KFORGE_GENERATED_SHARE}/bash-completion
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/share/bash-completion/generate_completion.py
          ${KFORGE_HELP_ARGS} --out ${KFORGE_COMPLETION}
  DEPENDS kforge kforged kforge-eval ${PROJECT_SOURCE_DIR}/share/bash-completion/generate_completion.py
          ${PROJECT_SOURCE_DIR}/cmake/kforge_help.py
  COMMENT "Bash completion from the binaries' --help")
add_custom_target(kforge_man_pages ALL DEPENDS ${KFORGE_MAN_PAGES} ${KFORGE_COMPLETION})
foreach(page IN LISTS KFORGE_MAN_PAGES)
  string(REGEX MATCH "[0-9]$" section ${page})
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
# bash-completion loads completions/NAME when NAME is first completed: one file, under each command's name.
foreach(command kforge kforged kforge-eval)
  install(FILES ${KFORGE_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME ${command})
endforeach()

# ---- Lmod modulefile: finds its prefix from its own path, so it needs no install-time edit.
configure_file(${PROJECT_SOURCE_DIR}/share/modulefiles/kforge/version.lua.in
               ${KFORGE_GENERATED_SHARE}/modulefiles/kforge/${PROJECT_VERSION}.lua @ONLY)
install(FILES ${KFORGE_GENERATED_SHARE}/modulefiles/kforge/${PROJECT_VERSION}.lua
        DESTINATION ${CMAKE_INSTALL_DATADIR}/modulefiles/kforge)

# ---- CMake package: find_package(kforge) gives kforge::jobs (jobs/include headers + the HDF5 archive library).
set_target_properties(kforge_jobs PROPERTIES EXPORT_NAME jobs)
install(TARGETS kforge_jobs EXPORT kforgeTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobs/include/kforge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
set(KFORGE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kforge)
install(EXPORT kforgeTargets NAMESPACE kforge:: DESTINATION ${KFORGE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kforgeConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/kforgeConfig.cmake INSTALL_DESTINATION ${KFORGE_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_DATADIR)
# 0.x: a minor version may change the archive API (docs/archive-schema.md, "Changing the schema").
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kforgeConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kforgeConfig.cmake ${PROJECT_BINARY_DIR}/kforgeConfigVersion.cmake
        DESTINATION ${KFORGE_CMAKE_DIR})
