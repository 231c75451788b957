#===- MemOptVersion.cmake - version header ---------------------------------===#
#
# Generates include/MemOpt/Support/Version.h in the build tree from
# project(mem-opt VERSION ...) and the git commit of the source tree at
# configure time. Without git, or outside a checkout, the commit is "unknown".
#
#===----------------------------------------------------------------------===#

set(MEMOPT_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    OUTPUT_VARIABLE memopt_git_commit
    RESULT_VARIABLE memopt_git_result
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET)
  if(memopt_git_result EQUAL 0 AND memopt_git_commit)
    set(MEMOPT_GIT_COMMIT "${memopt_git_commit}")
  endif()
endif()
# Reconfigure when HEAD moves so the commit stays current.
if(EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" rev-parse --git-dir
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    OUTPUT_VARIABLE memopt_git_dir
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET)
  get_filename_component(memopt_git_dir "${memopt_git_dir}" ABSOLUTE
    BASE_DIR "${PROJECT_SOURCE_DIR}")
  if(EXISTS "${memopt_git_dir}/HEAD")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
      "${memopt_git_dir}/HEAD")
  endif()
endif()

configure_file(
  "${PROJECT_SOURCE_DIR}/include/MemOpt/Support/Version.h.in"
  "${PROJECT_BINARY_DIR}/include/MemOpt/Support/Version.h"
  @ONLY)
