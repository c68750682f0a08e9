# One place for the warning flags every kforge target uses.
add_library(kforge_warnings INTERFACE)
target_compile_options(kforge_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wcast-align
  -Wformat=2 -Wimplicit-fallthrough)
# -Wnull-dereference is left out: GCC 12 reports false positives inside libstdc++ (basic_string) instantiations.
if(KFORGE_WERROR)
  target_compile_options(kforge_warnings INTERFACE -Werror)
endif()
