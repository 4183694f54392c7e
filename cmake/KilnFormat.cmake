# check-format / format: clang-format-22, from the same LLVM as the build,
# so that formatter versions cannot disagree, over every C and C++ file git
# tracks (TableGen'd and .def files excepted).
find_program(KILN_CLANG_FORMAT NAMES clang-format-22
  PATHS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(KILN_CLANG_FORMAT NAMES clang-format-22)
find_package(Git QUIET)
if(NOT KILN_CLANG_FORMAT OR NOT GIT_FOUND)
  # CI runs check-format: fail there, saying why, rather than not at all.
  add_custom_target(check-format
    COMMAND ${CMAKE_COMMAND} -E echo
      "check-format needs clang-format-22 and git (scripts/install-deps.sh)"
    COMMAND ${CMAKE_COMMAND} -E false)
  return()
endif()

set(KILN_FORMAT_FILES_COMMAND
  ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} ls-files -z --
  "*.c" "*.h" "*.cpp")
add_custom_target(check-format
  COMMAND ${KILN_FORMAT_FILES_COMMAND}
    | xargs -0 ${KILN_CLANG_FORMAT} --dry-run --Werror --style=file
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "Checking the format of every C and C++ file (clang-format-22)"
  VERBATIM)
add_custom_target(format
  COMMAND ${KILN_FORMAT_FILES_COMMAND}
    | xargs -0 ${KILN_CLANG_FORMAT} -i --style=file
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "Formatting every C and C++ file (clang-format-22)"
  VERBATIM)
