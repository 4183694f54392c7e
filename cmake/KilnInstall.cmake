# `cmake --install build --prefix P`: the tools, the public headers, the
# libraries and the CMake package `kiln`, whose targets a host program links
# with no other flags:
#   kiln::lazy     lazy tensors, grad and the compiler behind them
#   kiln::runtime  the runtime's C API alone (no MLIR or LLVM)
# The package finds the very LLVM and MLIR that kiln was built with.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KILN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)

# kiln::lazy: an interface over the static libraries behind the lazy API.
add_library(kiln_lazy INTERFACE)
target_link_libraries(kiln_lazy INTERFACE KilnLazy)
target_include_directories(kiln_lazy INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
set_target_properties(kiln_lazy PROPERTIES EXPORT_NAME lazy)
add_library(kiln::lazy ALIAS kiln_lazy)
set_target_properties(kiln_runtime PROPERTIES EXPORT_NAME runtime)
add_library(kiln::runtime ALIAS kiln_runtime)

# The static libraries, in the package under kiln::internal_* names (a host
# program names only kiln::lazy).
set(KILN_INSTALLED_LIBRARIES KilnLazy KilnTrace KilnCompiler KilnPipelines
  KilnConversion KilnCodegenCommon KilnCodegenCPU KilnCodegenGPU
  KilnTransforms KilnDialect KilnElementTypes KilnSupport)
# A static build's libraries carry the runtime's archive (KilnSupport links it).
if(KILN_STATIC)
  list(APPEND KILN_INSTALLED_LIBRARIES kiln_runtime_static)
endif()
foreach(library ${KILN_INSTALLED_LIBRARIES})
  set_target_properties(${library} PROPERTIES EXPORT_NAME internal_${library})
endforeach()

install(TARGETS kiln_lazy kiln_runtime ${KILN_INSTALLED_LIBRARIES}
  EXPORT kilnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS kiln-opt kiln-run kiln-compile RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Installed tools find kiln's libraries beside them and LLVM's where LLVM is.
# (The Python package installs kiln-opt and kiln-run under kiln/bin with the
# runtime in kiln/: python/CMakeLists.txt sets theirs.)
if(NOT SKBUILD)
  set_target_properties(kiln-opt kiln-run kiln-compile PROPERTIES
    INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")
endif()

# The public API only: the lazy tensors (and kiln::Jit's replay), the
# trace they record, the
# compiler's facade (Executable, Device, Diagnostics), HostTensor, element
# types, .npy and the lock a trace node holds, and the
# runtime's C headers.
install(FILES
  ${PROJECT_SOURCE_DIR}/include/kiln/Lazy/Autocast.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Lazy/Distributed.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Lazy/Jit.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Lazy/Tensor.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln/Lazy)
install(FILES
  ${PROJECT_SOURCE_DIR}/include/kiln/Compiler/Device.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Compiler/Diagnostics.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Compiler/Executable.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Compiler/MatmulPrecision.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln/Compiler)
install(FILES
  ${PROJECT_SOURCE_DIR}/include/kiln/Trace/Trace.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Trace/TraceOps.def
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln/Trace)
install(FILES
  ${PROJECT_SOURCE_DIR}/include/kiln/Support/Donation.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Support/ElementTypes.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Support/HostTensor.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Support/Npy.h
  ${PROJECT_SOURCE_DIR}/include/kiln/Support/SpinMutex.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln/Support)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/kiln_rt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT kilnTargets NAMESPACE kiln::
  DESTINATION ${KILN_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kilnConfig.cmake
  INSTALL_DESTINATION ${KILN_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/kilnConfig.cmake
  ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
  DESTINATION ${KILN_INSTALL_CMAKEDIR})
