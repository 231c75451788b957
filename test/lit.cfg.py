# -*- Python -*-
# lit configuration of the mem-opt regression tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MEM_OPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = [
    "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "lib", "Inputs"
]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.memopt_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%memopt_src", config.memopt_src_root))
config.substitutions.append(
    ("%mem_opt_plugin", os.path.join(config.memopt_lib_dir, "MemOptPlugin.so"))
)
# The project's shared known-answer models live beside the repository (as in
# CI); test/Inputs keeps copies so that a lone clone tests too.
shared_dir = os.path.join(os.path.dirname(config.memopt_src_root), "shared")
config.substitutions.append(("%shared", shared_dir))
if os.path.isdir(os.path.join(shared_dir, "models")):
    config.available_features.add("shared-models")
elif os.environ.get("CI"):
    # Under CI the tests that need ../shared fail rather than skip: they run
    # and fail on the missing files, test/shared-models.test says why.
    config.available_features.add("shared-models")
    lit_config.warning(
        "CI is set but %s is missing: the tests that need the shared models "
        "(REQUIRES: shared-models) fail; check out ../shared beside the "
        "repository" % os.path.join(shared_dir, "models"))

llvm_config.use_default_substitutions()
# `not`, `count` and friends at the start of a RUN line come from PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.memopt_tools_dir, config.llvm_tools_dir]
tools = [
    "mem-opt",
    "mem-opt-zoo",
    "mem-opt-run",
    "mem-opt-arena-bench",
    "mem-opt-bench",
    "mem-opt-import",
    "mem-opt-compile",
    ToolSubst("mlir-opt", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Host execution with mlir-runner (test/Execution).
config.substitutions.append(
    ("%mlir_runner_libs",
     ",".join(os.path.join(config.llvm_tools_dir, "..", "lib", lib + ".so")
              for lib in ["libmlir_runner_utils", "libmlir_c_runner_utils"])))
llvm_config.add_tool_substitutions([ToolSubst("mlir-runner", unresolved="fatal")],
                                   [config.llvm_tools_dir])
# Test scripts that need Debian's Python packages run with the system python.
config.substitutions.append(("%syspython", "/usr/bin/python3"))
config.substitutions.append(("%llvm_tools_dir", config.llvm_tools_dir))
# Cortex-M firmware tests: arm-none-eabi-gcc with newlib, QEMU's MPS2 boards
# and Debian's numpy.
if (shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc")
        and os.path.exists("/usr/bin/python3")):
    config.available_features.add("cortex-m-qemu")
config.substitutions.append(("%memopt_tools_dir", config.memopt_tools_dir))
config.substitutions.append((
    "%run_firmware",
    "/usr/bin/python3 %s --tools %s" % (
        os.path.join(config.memopt_src_root, "test", "Pipelines", "firmware",
                     "run_model.py"), config.memopt_tools_dir)))
config.substitutions.append(("%memopt_version", config.memopt_version))
config.substitutions.append(("%memopt_tools_dir", config.memopt_tools_dir))
