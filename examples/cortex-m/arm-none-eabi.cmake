# ===- arm-none-eabi.cmake - CMake toolchain file for bare-metal M -------=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# Cross-compiles with the GNU Arm Embedded toolchain (Debian's
# gcc-arm-none-eabi and libnewlib-arm-none-eabi). The CPU, FPU and float ABI
# flags are the project's (CMakeLists.txt sets them from CPU and FLOAT_ABI);
# this file only names the compilers and keeps CMake's try_compile from
# linking a program for the host.
#
# ===--------------------------------------------------------------------=== #

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(ARM_NONE_EABI_PREFIX "arm-none-eabi-" CACHE STRING
    "Prefix of the cross tools (a path may precede it)")
set(CMAKE_C_COMPILER "${ARM_NONE_EABI_PREFIX}gcc")
set(CMAKE_ASM_COMPILER "${ARM_NONE_EABI_PREFIX}gcc")
set(CMAKE_OBJCOPY "${ARM_NONE_EABI_PREFIX}objcopy")
set(CMAKE_SIZE "${ARM_NONE_EABI_PREFIX}size")

# A bare-metal program cannot be linked without a linker script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
