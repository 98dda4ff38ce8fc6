# Generates git_revision.cpp at every build (not only at configure time), so provenance names the
# revision the binary was actually built from. The file is rewritten only when the text changes.
set(FABRICBENCH_GIT_REVISION_CPP ${CMAKE_BINARY_DIR}/generated/git_revision.cpp)
add_custom_target(fabricbench_git_revision
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${FABRICBENCH_GIT_REVISION_CPP}
          -P ${CMAKE_SOURCE_DIR}/cmake/WriteGitRevision.cmake
  BYPRODUCTS ${FABRICBENCH_GIT_REVISION_CPP}
  COMMENT "Recording the git revision"
  VERBATIM)
