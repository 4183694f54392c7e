# The reference generated from ODS, as upstream generates its dialect docs:
# docs/Dialect.md (every op with its operands, attributes and example),
# docs/TransformPasses.md, docs/ConversionPasses.md and docs/Codegen*Passes.md
# (every pass and its options). `kiln-docs` generates them
# into the build tree, `update-docs` copies them into docs/, and
# `check-docs` (run by CI) fails when docs/ is not current.
set(KILN_DOCS_DIR ${PROJECT_BINARY_DIR}/docs/generated)
set(KILN_TBLGEN_INCLUDES -I ${PROJECT_SOURCE_DIR}/include
  -I ${MLIR_INCLUDE_DIRS} -I ${LLVM_INCLUDE_DIRS})
set(KILN_GENERATED_DOCS)

# Every .td of kiln's: a page changes with any file its source includes.
file(GLOB_RECURSE KILN_TD_FILES CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/include/kiln/*.td)

function(kiln_add_doc output source)
  add_custom_command(OUTPUT ${KILN_DOCS_DIR}/${output}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${KILN_DOCS_DIR}
    COMMAND ${MLIR_TABLEGEN_EXE} ${ARGN} ${KILN_TBLGEN_INCLUDES}
      ${PROJECT_SOURCE_DIR}/${source} -o ${KILN_DOCS_DIR}/${output}
    DEPENDS ${PROJECT_SOURCE_DIR}/${source} ${KILN_TD_FILES} MLIRKilnOpsIncGen
    COMMENT "Generating docs/${output}")
  set(KILN_GENERATED_DOCS ${KILN_GENERATED_DOCS} ${output} PARENT_SCOPE)
endfunction()

kiln_add_doc(Dialect.md include/kiln/Dialect/Kiln/IR/KilnOps.td
  -gen-dialect-doc -dialect=kiln)
kiln_add_doc(TransformPasses.md include/kiln/Dialect/Kiln/Transforms/Passes.td
  -gen-pass-doc)
kiln_add_doc(ConversionPasses.md include/kiln/Conversion/Passes.td
  -gen-pass-doc)
kiln_add_doc(CodegenCommonPasses.md include/kiln/Codegen/Common/Passes.td
  -gen-pass-doc)
kiln_add_doc(CodegenCPUPasses.md include/kiln/Codegen/CPU/Passes.td
  -gen-pass-doc)
kiln_add_doc(CodegenGPUPasses.md include/kiln/Codegen/GPU/Passes.td
  -gen-pass-doc)

set(KILN_DOC_OUTPUTS)
set(KILN_CHECK_DOCS_COMMANDS)
set(KILN_UPDATE_DOCS_COMMANDS)
foreach(doc ${KILN_GENERATED_DOCS})
  list(APPEND KILN_DOC_OUTPUTS ${KILN_DOCS_DIR}/${doc})
  list(APPEND KILN_CHECK_DOCS_COMMANDS COMMAND ${CMAKE_COMMAND} -E
    compare_files ${KILN_DOCS_DIR}/${doc} ${PROJECT_SOURCE_DIR}/docs/${doc})
  list(APPEND KILN_UPDATE_DOCS_COMMANDS COMMAND ${CMAKE_COMMAND} -E
    copy ${KILN_DOCS_DIR}/${doc} ${PROJECT_SOURCE_DIR}/docs/${doc})
endforeach()
add_custom_target(kiln-docs DEPENDS ${KILN_DOC_OUTPUTS})
add_custom_target(update-docs ${KILN_UPDATE_DOCS_COMMANDS}
  DEPENDS kiln-docs
  COMMENT "Copying the generated reference into docs/")
add_custom_target(check-docs ${KILN_CHECK_DOCS_COMMANDS}
  DEPENDS kiln-docs
  COMMENT "Checking that docs/ is the reference generated from ODS (if not: cmake --build build --target update-docs)")
