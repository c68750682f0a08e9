# One place for the warning flags every kforge target uses.
add_library(kforge_warnings INTERFACE)
target_compile_options(kforge_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wcast-align
  -Wnull-dereference -Wformat=2 -Wimplicit-fallthrough)
if(KFORGE_WERROR)
  target_compile_options(kforge_warnings INTERFACE -Werror)
endif()
