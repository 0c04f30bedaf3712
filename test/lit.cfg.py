# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "BWC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtext"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.bwc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "Inputs", "fuzz"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%bwc_src", config.bwc_src_root))

# FileCheck, not, count come from LLVM's tools dir (Debian names the PATH
# copies FileCheck-22), bwc's tools from the build tree.
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.bwc_tools_dir, config.llvm_tools_dir]
tools = ["bwc-opt", "bwc-compile", "bwc-run", "bwc-tune-run"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ../shared/models (real models with reference outputs) sits beside the
# repository on CI and developer machines; tests that need it are marked
# `REQUIRES: shared-models` and reported UNSUPPORTED elsewhere.
shared_models = os.path.join(os.path.dirname(config.bwc_src_root), "shared", "models")
if os.path.isdir(shared_models):
    config.available_features.add("shared-models")
config.substitutions.append(("%shared_models", shared_models))

# The fake CUDA driver (test/unit/Runtime/FakeCuda.cpp) for compiler tests
# that need a "GPU" (bwc-compile --tune); a real one is never used by lit.
config.substitutions.append(
    ("%fake_cuda", os.path.join(config.bwc_obj_root, "lib", "libbwc-fake-cuda.so")))
