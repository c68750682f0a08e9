# cmake -DINPUT=file -DOUTPUT=header -DSYMBOL=kName -P EmbedText.cmake
# The file's bytes as a C++ raw string literal `SYMBOL` and its file name as `SYMBOL`Name, in kforge::embedded.
file(READ ${INPUT} content)
get_filename_component(name ${INPUT} NAME)
file(WRITE ${OUTPUT} "#pragma once\n// Generated from ${name}; do not edit.\nnamespace kforge::embedded {\ninline constexpr const char* ${SYMBOL}Name = \"<embedded ${name}>\";\ninline constexpr const char* ${SYMBOL} = R\"kforge_embed(${content})kforge_embed\";\n}\n")
