# fabricbench_build_info: the version and the git revision, generated at every build (not only at
# configure time), so provenance names the revision the binary was actually built from. The file
# is rewritten only when its text changes, and nothing but this small library depends on it.
set(fabricbench_build_info_cpp ${CMAKE_BINARY_DIR}/generated/build_info.cpp)
add_custom_target(fabricbench_build_info_source
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${fabricbench_build_info_cpp}
          -DVERSION=${PROJECT_VERSION} -P ${CMAKE_SOURCE_DIR}/cmake/WriteBuildInfo.cmake
  BYPRODUCTS ${fabricbench_build_info_cpp}
  COMMENT "Recording the git revision"
  VERBATIM)
add_library(fabricbench_build_info STATIC ${fabricbench_build_info_cpp})
add_dependencies(fabricbench_build_info fabricbench_build_info_source)
target_include_directories(fabricbench_build_info PUBLIC ${PROJECT_SOURCE_DIR})
