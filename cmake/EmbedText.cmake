# cmake -DINPUT=file -DOUTPUT=header -P EmbedText.cmake: the file's bytes as a C++ raw string literal.
file(READ ${INPUT} content)
get_filename_component(name ${INPUT} NAME)
file(WRITE ${OUTPUT} "#pragma once\n// Generated from ${name}; do not edit.\nnamespace kforge::embedded {\ninline constexpr const char* kLocalSiteName = \"<embedded ${name}>\";\ninline constexpr const char* kLocalSiteYaml = R\"kforge_embed(${content})kforge_embed\";\n}\n")
