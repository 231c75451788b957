#===- MemOptInstall.cmake - the MemOpt CMake package ------------------------===#
#
# `cmake --install` puts the tools in bin/, the libraries (every one made by
# add_memopt_library or memopt_export_library) and the plugin in lib/, the
# public and generated headers in include/, and MemOptConfig.cmake with
# imported targets MemOpt::<library> in lib/cmake/MemOpt.
#
#===----------------------------------------------------------------------===#

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MEMOPT_INSTALL_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/MemOpt")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/MemOpt"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  COMPONENT MemOptDevelopment
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
  PATTERN "*.h.in" EXCLUDE)
install(DIRECTORY "${PROJECT_BINARY_DIR}/include/MemOpt"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  COMPONENT MemOptDevelopment
  FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT MemOptTargets
  NAMESPACE MemOpt::
  DESTINATION "${MEMOPT_INSTALL_CMAKE_DIR}"
  COMPONENT MemOptDevelopment)

get_property(MEMOPT_EXPORTED_LIBRARIES GLOBAL
  PROPERTY MEMOPT_EXPORTED_LIBRARIES)
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/modules/MemOptConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/lib/cmake/MemOpt/MemOptConfig.cmake"
  INSTALL_DESTINATION "${MEMOPT_INSTALL_CMAKE_DIR}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/lib/cmake/MemOpt/MemOptConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/lib/cmake/MemOpt/MemOptConfig.cmake"
  "${PROJECT_BINARY_DIR}/lib/cmake/MemOpt/MemOptConfigVersion.cmake"
  DESTINATION "${MEMOPT_INSTALL_CMAKE_DIR}"
  COMPONENT MemOptDevelopment)

# Tools. They and the plugin find libMLIR.so through the LLVM directory,
# which the installed copies must keep in their runpath.
foreach(tool mem-opt mem-opt-compile mem-opt-import mem-opt-run mem-opt-zoo)
  if(TARGET ${tool})
    set_target_properties(${tool} PROPERTIES
      INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
    install(TARGETS ${tool} RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
      COMPONENT MemOptTools)
  endif()
endforeach()
set_target_properties(MemOptPlugin PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
