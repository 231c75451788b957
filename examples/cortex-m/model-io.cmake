# ===- model-io.cmake - C tables of a compiled model's inputs/outputs ----=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# Run with `cmake -P` at build time, after mem-opt-compile wrote the header:
#   cmake -DHEADER=model.h -DOUT=model_io.c [-DINPUT=in.bin] -P model-io.cmake
# Reads the header's `<NAME>_IN<i>_BYTES <n> /* <shape> <ctype> */` lines
# (and _OUT<i>_) and writes model_io.c: the tables main.c walks (name, C
# type, shape, bytes and arena offset of every input and output, and the
# quantization from <NAME>_IN<i>_SCALE / _ZERO_POINT where the header has
# them), a function that calls the model, and the bytes of INPUT (every
# input in order, raw little-endian, as `mem-opt-run --write-inputs` writes
# them) if given. Only --io=arena models (the default) are supported.
#
# ===--------------------------------------------------------------------=== #

file(READ "${HEADER}" text)
if(NOT text MATCHES "\nvoid ([A-Za-z_][A-Za-z0-9_]*)\\(void \\*arena\\);")
  message(FATAL_ERROR "${HEADER}: no `void <fn>(void *arena);` (the example "
                      "needs mem-opt-compile's default --io=arena)")
endif()
set(fn "${CMAKE_MATCH_1}")
string(TOUPPER "${fn}" up)

set(types "int8_t;uint8_t;int16_t;int32_t;int64_t;float;double")
get_filename_component(header_name "${HEADER}" NAME)
set(c "/* Generated from ${header_name} by model-io.cmake. */\n")
string(APPEND c "#include \"${header_name}\"\n#include \"model_io.h\"\n\n")
string(APPEND c "void modelRun(void *arena) { ${fn}(arena); }\n")
string(APPEND c "const char modelName[] = \"${fn}\";\n")
string(APPEND c "const unsigned modelArenaSize = ${up}_ARENA_SIZE;\n")
string(APPEND c "const unsigned modelArenaAlign = ${up}_ARENA_ALIGN;\n")
foreach(kind IN ITEMS IN OUT)
  string(REGEX MATCHALL
         "#define ${up}_${kind}[0-9]+_BYTES [0-9]+ /\\* [0-9x]+ [a-z0-9_]+ \\*/"
         lines "${text}")
  set(entries "")
  set(count 0)
  foreach(line IN LISTS lines)
    string(REGEX MATCH "_${kind}([0-9]+)_BYTES ([0-9]+) /\\* ([0-9x]+) ([a-z0-9_]+)"
           _ "${line}")
    set(i "${CMAKE_MATCH_1}")
    set(bytes "${CMAKE_MATCH_2}")
    set(shape "${CMAKE_MATCH_3}")
    list(FIND types "${CMAKE_MATCH_4}" type)
    if(type LESS 0)
      message(FATAL_ERROR "${HEADER}: unsupported C type ${CMAKE_MATCH_4}")
    endif()
    set(q "${up}_${kind}${i}")
    string(APPEND c "#ifdef ${q}_SCALE\n#define ${kind}${i}_SCALE ${q}_SCALE\n"
           "#define ${kind}${i}_ZP ${q}_ZERO_POINT\n#else\n"
           "#define ${kind}${i}_SCALE 0.0f\n#define ${kind}${i}_ZP 0\n#endif\n")
    string(APPEND entries "  {\"${shape}\", ${type}, ${bytes}, ${q}_OFFSET, "
           "${kind}${i}_SCALE, ${kind}${i}_ZP},\n")
    math(EXPR count "${count} + 1")
  endforeach()
  string(TOLOWER "${kind}" lower)
  if(lower STREQUAL "in")
    set(array "modelInputs")
    set(number "numModelInputs")
  else()
    set(array "modelOutputs")
    set(number "numModelOutputs")
  endif()
  string(APPEND c "const unsigned ${number} = ${count};\n")
  string(APPEND c "const struct ModelTensor ${array}[] = {\n${entries}"
         "  {\"\", 0, 0, 0, 0.0f, 0}};\n")
endforeach()

if(INPUT)
  file(READ "${INPUT}" hex HEX)
  string(LENGTH "${hex}" digits)
  math(EXPR size "${digits} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
  string(APPEND c "const unsigned modelInputFileBytes = ${size};\n")
  string(APPEND c "const unsigned char modelInputFile[] = {\n${bytes}0};\n")
else()
  string(APPEND c "const unsigned modelInputFileBytes = 0;\n")
  string(APPEND c "const unsigned char modelInputFile[] = {0};\n")
endif()

# Rewrite only on change, so that the firmware is not relinked for nothing.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL c)
  file(WRITE "${OUT}" "${c}")
endif()
