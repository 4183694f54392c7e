# -*- Python -*-
# Runs every gtest binary under unittests/ as lit tests.

import lit.formats

config.name = "KILN-Unit"
config.suffixes = []
config.test_exec_root = config.unittests_obj_root
config.test_source_root = config.unittests_obj_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# The compile cache of the tests, in the build (not the user's).
import os
config.environment["KILN_CACHE_DIR"] = os.path.join(
    config.unittests_obj_root, "kiln-cache")

# In a -DKILN_SANITIZE=ON build: LLVM gives the thread that first registers
# its signal handlers (writing a JIT object file for the compile cache does)
# an alternate signal stack from malloc, which ASan unmaps when the thread
# ends, and dies (StressTest alone, its first compile on a worker thread).
config.environment["ASAN_OPTIONS"] = ":".join(
    filter(None, ["use_sigaltstack=0", os.environ.get("ASAN_OPTIONS")]))
