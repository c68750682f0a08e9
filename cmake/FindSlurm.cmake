# FindSlurm — locate libslurm and its headers (Debian's libslurm-dev ships no pkg-config or CMake file).
#
# Hints: Slurm_ROOT (CMake >= 3.12 honours <Pkg>_ROOT) or the SLURM_ROOT environment variable, e.g. a
# site install under /opt/slurm.
#
# Result variables:
#   Slurm_FOUND, Slurm_VERSION (e.g. 22.05.8), Slurm_VERSION_NUMBER (e.g. 0x160508),
#   Slurm_INCLUDE_DIRS, Slurm_LIBRARIES
# Imported target:
#   Slurm::Slurm

find_path(Slurm_INCLUDE_DIR
  NAMES slurm/slurm.h
  HINTS ${Slurm_ROOT} ENV SLURM_ROOT
  PATH_SUFFIXES include
  DOC "Directory holding slurm/slurm.h")
find_library(Slurm_LIBRARY
  NAMES slurm
  HINTS ${Slurm_ROOT} ENV SLURM_ROOT
  PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu
  DOC "libslurm")

set(Slurm_VERSION "")
if(Slurm_INCLUDE_DIR AND EXISTS "${Slurm_INCLUDE_DIR}/slurm/slurm_version.h")
  file(STRINGS "${Slurm_INCLUDE_DIR}/slurm/slurm_version.h" _slurm_version_line
       REGEX "^#define[ \t]+SLURM_VERSION_NUMBER[ \t]+0x[0-9a-fA-F]+")
  if(_slurm_version_line MATCHES "SLURM_VERSION_NUMBER[ \t]+(0x[0-9a-fA-F]+)")
    set(Slurm_VERSION_NUMBER "${CMAKE_MATCH_1}")
    # 0xMMmmuu: major, minor, micro one byte each (see SLURM_VERSION_NUM in slurm_version.h).
    math(EXPR _slurm_major "(${Slurm_VERSION_NUMBER} >> 16) & 255")
    math(EXPR _slurm_minor "(${Slurm_VERSION_NUMBER} >> 8) & 255")
    math(EXPR _slurm_micro "${Slurm_VERSION_NUMBER} & 255")
    if(_slurm_minor LESS 10)
      set(_slurm_minor "0${_slurm_minor}")
    endif()
    set(Slurm_VERSION "${_slurm_major}.${_slurm_minor}.${_slurm_micro}")
  endif()
  unset(_slurm_version_line)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Slurm
  REQUIRED_VARS Slurm_LIBRARY Slurm_INCLUDE_DIR Slurm_VERSION
  VERSION_VAR Slurm_VERSION
  REASON_FAILURE_MESSAGE "install libslurm-dev (Debian/Ubuntu) or set Slurm_ROOT to a Slurm install prefix")

if(Slurm_FOUND)
  set(Slurm_INCLUDE_DIRS "${Slurm_INCLUDE_DIR}")
  set(Slurm_LIBRARIES "${Slurm_LIBRARY}")
  if(NOT TARGET Slurm::Slurm)
    add_library(Slurm::Slurm UNKNOWN IMPORTED)
    set_target_properties(Slurm::Slurm PROPERTIES
      IMPORTED_LOCATION "${Slurm_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${Slurm_INCLUDE_DIR}")
  endif()
endif()
mark_as_advanced(Slurm_INCLUDE_DIR Slurm_LIBRARY)
