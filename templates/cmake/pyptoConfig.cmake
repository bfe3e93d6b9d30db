# find_package(pypto) for an installed pypto (`cmake --install`; found under
# <prefix>/share/pypto/cmake/). It provides:
#   pypto::pypto       the compiler, an imported executable
#   pypto_add_program(<target> SOURCE model.py [ENTRY name] [SOC 910b|950]
#                     [ARGS flag...] [DEFINES NAME=VALUE...] [INCLUDE_DIRS dir...])
#     generates the model's project at build time into ${CMAKE_CURRENT_BINARY_DIR}/<target>/
#     (again whenever model.py or a module it imports changes: pypto's depfile lists every source
#     file it read) and builds it with ninja. <target> is then an imported executable (the
#     project's bin/run, usable in add_test(COMMAND <target> ...)), <target>_kernels an imported
#     static library of its kernels (entries pypto_kernel_<name>), and <target>_build the custom
#     target that makes both (part of ALL; custom commands that run <target> should DEPEND on it).
#     ARGS are passed to `pypto build` as written (e.g. --arg x=FP32[64,128] --scalar n=64),
#     DEFINES as -D NAME=VALUE, INCLUDE_DIRS as -I.
# Modelled on Halide's add_halide_library.
cmake_minimum_required(VERSION 3.20)  # DEPFILE for every generator, CMP0116

get_filename_component(_pypto_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET pypto::pypto)
  add_executable(pypto::pypto IMPORTED)
  set_target_properties(pypto::pypto PROPERTIES IMPORTED_LOCATION "${_pypto_prefix}/bin/pypto")
endif()
find_program(PYPTO_NINJA NAMES ninja ninja-build)
if(NOT PYPTO_NINJA)
  set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
  set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE "pypto builds its generated projects with ninja: install ninja-build")
  return()
endif()

function(pypto_add_program target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SOURCE;ENTRY;SOC" "ARGS;DEFINES;INCLUDE_DIRS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pypto_add_program(${target}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCE)
    message(FATAL_ERROR "pypto_add_program(${target}): SOURCE model.py is required")
  endif()
  get_filename_component(src "${arg_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${src}")
    message(FATAL_ERROR "pypto_add_program(${target}): SOURCE ${src} does not exist")
  endif()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  set(depfile "${CMAKE_CURRENT_BINARY_DIR}/${target}.d")
  set(cmd "$<TARGET_FILE:pypto::pypto>" build --emit-only "${src}" -o "${out}" --depfile "${depfile}")
  if(arg_ENTRY)
    list(APPEND cmd --entry "${arg_ENTRY}")
  endif()
  if(arg_SOC)
    list(APPEND cmd --soc "${arg_SOC}")
  endif()
  foreach(d IN LISTS arg_DEFINES)
    list(APPEND cmd -D "${d}")
  endforeach()
  foreach(i IN LISTS arg_INCLUDE_DIRS)
    get_filename_component(i "${i}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND cmd -I "${i}")
  endforeach()
  list(APPEND cmd ${arg_ARGS})
  # Generation: files whose text did not change keep their mtimes (ninja below then recompiles
  # only what changed); the touch marks build.ninja, the depfile's target, as done.
  add_custom_command(
    OUTPUT "${out}/build.ninja"
    COMMAND ${cmd}
    COMMAND "${CMAKE_COMMAND}" -E touch "${out}/build.ninja"
    DEPENDS "${src}" pypto::pypto
    DEPFILE "${depfile}"
    COMMENT "pypto: generating ${target} from ${arg_SOURCE}"
    VERBATIM)
  add_custom_command(
    OUTPUT "${out}/bin/run" "${out}/lib/libkernels.a"
    COMMAND "${PYPTO_NINJA}" -C "${out}"
    COMMAND "${CMAKE_COMMAND}" -E touch "${out}/bin/run" "${out}/lib/libkernels.a"
    DEPENDS "${out}/build.ninja"
    COMMENT "pypto: building ${target}"
    USES_TERMINAL
    VERBATIM)
  add_custom_target(${target}_build ALL DEPENDS "${out}/bin/run" "${out}/lib/libkernels.a")
  add_executable(${target} IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${out}/bin/run")
  add_library(${target}_kernels STATIC IMPORTED GLOBAL)
  set_target_properties(${target}_kernels PROPERTIES IMPORTED_LOCATION "${out}/lib/libkernels.a")
endfunction()
