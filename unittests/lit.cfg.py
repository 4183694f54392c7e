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
