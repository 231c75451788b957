#===- AddMemOpt.cmake - helpers for mem-opt targets ------------------------===#
#
# mem-opt libraries are static, position-independent archives that link the
# shared libMLIR.so (target `MLIR`), so that the driver, the plugin and the
# unit tests all share one copy of MLIR.
#
#===----------------------------------------------------------------------===#

# Gives library `name` what a target that links it needs to compile against
# its headers: the include directories of mem-opt's headers (in the build
# tree and once installed) and C++17. MLIR's and LLVM's include directories
# and flags come from the MLIR the user finds: the installed package adds
# them (MemOptConfig.cmake), and a project that add_subdirectory(mem-opt)s
# has found MLIR itself.
function(memopt_add_usage_requirements name)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_compile_features(${name} PUBLIC cxx_std_17)
endfunction()

# Installs library `name` into lib/, adds it to the MemOptTargets export set
# (imported as MemOpt::<name> by MemOptConfig.cmake) and gives it its usage
# requirements (memopt_add_usage_requirements). Every library that
# add_memopt_library makes without TEST_ONLY is exported; call this only for
# libraries made another way.
function(memopt_export_library name)
  memopt_add_usage_requirements(${name})
  install(TARGETS ${name} EXPORT MemOptTargets
    ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX} COMPONENT MemOptDevelopment
    LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX} COMPONENT MemOptDevelopment)
  set_property(GLOBAL APPEND PROPERTY MEMOPT_EXPORTED_LIBRARIES ${name})
  # The same name for projects that add_subdirectory(mem-opt).
  add_library(MemOpt::${name} ALIAS ${name})
endfunction()

# Makes mem-opt library `name` from the sources, linking LINK_LIBS and
# libMLIR.so. It is installed and exported (memopt_export_library) unless
# TEST_ONLY: test-only libraries (test/lib) stay in the build tree.
function(add_memopt_library name)
  cmake_parse_arguments(ARG "TEST_ONLY" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR
    DISABLE_INSTALL
    DEPENDS ${ARG_DEPENDS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR)
  if(ARG_TEST_ONLY)
    memopt_add_usage_requirements(${name})
  else()
    memopt_export_library(${name})
  endif()
endfunction()
