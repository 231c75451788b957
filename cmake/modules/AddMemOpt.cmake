#===- AddMemOpt.cmake - helpers for mem-opt targets ------------------------===#
#
# mem-opt libraries are static, position-independent archives that link the
# shared libMLIR.so (target `MLIR`), so that the driver, the plugin and the
# unit tests all share one copy of MLIR.
#
#===----------------------------------------------------------------------===#

# Installs library `name` into lib/, adds it to the MemOptTargets export set
# (imported as MemOpt::<name> by MemOptConfig.cmake) and gives it the include
# directories of mem-opt's headers, in the build tree and once installed.
# Every library that add_memopt_library makes is exported; call this only
# for libraries made another way.
function(memopt_export_library name)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  install(TARGETS ${name} EXPORT MemOptTargets
    ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX} COMPONENT MemOptDevelopment
    LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX} COMPONENT MemOptDevelopment)
  set_property(GLOBAL APPEND PROPERTY MEMOPT_EXPORTED_LIBRARIES ${name})
  # The same name for projects that add_subdirectory(mem-opt).
  add_library(MemOpt::${name} ALIAS ${name})
endfunction()

function(add_memopt_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR
    DISABLE_INSTALL
    DEPENDS ${ARG_DEPENDS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR)
  memopt_export_library(${name})
endfunction()
