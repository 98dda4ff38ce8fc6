# fabricbench_add_plugins(<name> SOURCES <files...> LINK <libraries...>)
#
# Plugins (commands, backends, the ops of a backend, input formats, log importers) register
# themselves from static initialisers (common/registry.hpp) that nothing references by name: from a
# static archive the linker would drop them. <name> is an interface library that puts their object
# files on the link line of every executable that links it, directly or not, followed by LINK for
# the symbols they use. Adding a plugin is adding its file to SOURCES (or to a globbed folder).
function(fabricbench_add_plugins name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LINK")
  add_library(${name}_objects OBJECT ${arg_SOURCES})
  target_link_libraries(${name}_objects PUBLIC ${arg_LINK})
  add_library(${name} INTERFACE)
  # A precompiled header (cli/) is listed among the objects too; the linker must not see it.
  target_link_libraries(${name} INTERFACE "$<FILTER:$<TARGET_OBJECTS:${name}_objects>,EXCLUDE,\\.(gch|pch)$>"
                        ${name}_objects ${arg_LINK})
endfunction()
