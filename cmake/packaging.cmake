# What a course hands out (docs/package.md): `cmake --install` and `cpack`
# make a Debian package, tilescope_<version>_<arch>.deb, of the programs, the
# headers lesson files are compiled against, the puzzles and the data the
# window reads. Every path is relative to the prefix: the programs find their
# data from their own folder (/proc/self/exe), so the tree also works unpacked
# anywhere (dpkg-deb -x, tests/package/test_package.sh).
#   cmake --build build/default && cd build/default && cpack
include(GNUInstallDirs)

# ---- The version the programs print (--version) ----
# The project's version, and the commit the build was configured from where
# git can say it cheaply (a tarball has none). A generated header included by
# the two mains only, so a new commit recompiles two files, not the targets.
set(TS_GIT_COMMIT "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE TS_GIT_COMMIT
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET TIMEOUT 10)
endif()
set(TS_VERSION_LINE "${PROJECT_VERSION}")
if(TS_GIT_COMMIT)
  set(TS_VERSION_LINE "${PROJECT_VERSION} (git ${TS_GIT_COMMIT})")
endif()
set(TS_VERSION_DIR ${PROJECT_BINARY_DIR}/generated/version)
configure_file(${CMAKE_CURRENT_LIST_DIR}/tilescope_version.hpp.in
               ${TS_VERSION_DIR}/tilescope_version.hpp @ONLY)
foreach(program tilescope-cli tilescope)
  if(TARGET ${program})
    target_include_directories(${program} PRIVATE ${TS_VERSION_DIR})
  endif()
endforeach()

# ---- What is installed ----
# The programs (app/CMakeLists.txt installs the window).
if(TARGET tilescope-cli)
  install(TARGETS tilescope-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# Every header a lesson file may include, and every one those include: the
# GPU half of a plug-in reads engine/cuda/*.cuh (engine/lesson_file.cpp),
# engine/lesson_dispatch.hpp the generated lesson list. engine/lesson_file.hpp
# looks for them in ../include/tilescope beside the programs.
install(DIRECTORY model lessons engine DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilescope
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh" PATTERN narration EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/lessons/generated/lessons/all_lessons.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilescope/lessons)
# The puzzles (engine/puzzles.hpp finds them in ../share/tilescope/puzzles),
# the lecture scripts to start from (tilescope --lecture), the performance
# reports the window's Performance panel opens without a GPU (app/perf).
install(DIRECTORY assets/puzzles assets/lectures DESTINATION ${CMAKE_INSTALL_DATADIR}/tilescope)
file(GLOB TS_SHIPPED_REPORTS ${PROJECT_SOURCE_DIR}/docs/perf_*.json)
install(FILES ${TS_SHIPPED_REPORTS} DESTINATION ${CMAKE_INSTALL_DATADIR}/tilescope/docs)
install(FILES README.md docs/package.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/tilescope)

# ---- The Debian package ----
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tilescope)
set(CPACK_PACKAGE_VENDOR TileScope)
set(CPACK_PACKAGE_CONTACT "TileScope developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "CUDA shared memory, made visible")
# (CPack puts the summary first and indents the rest, as the control file wants.)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "TileScope runs the kernels of the classic CUDA shared-memory
lessons, records what every thread did and replays it as an animated grid;
without an NVIDIA GPU a CPU simulator runs the same kernel source. The
package holds the window (tilescope), the command line (tilescope-cli), the
headers that lesson files and puzzle solutions are compiled against at run
time, and the puzzles.")
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES TRUE)  # .dynsym stays: plug-ins still resolve against the programs
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # tilescope_<version>_<arch>.deb
# The libraries the programs link, found by dpkg-shlibdeps (dpkg-dev) from
# the binaries; it reads the file types with `file`.
find_program(TS_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(TS_FILE_PROGRAM file)
mark_as_advanced(TS_DPKG_SHLIBDEPS TS_FILE_PROGRAM)
if(TS_DPKG_SHLIBDEPS AND TS_FILE_PROGRAM)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  message(WARNING "dpkg-shlibdeps or file not found (Debian's dpkg-dev, file): the package "
                  "would not declare the libraries it links")
endif()
# Lesson files are compiled at run time by the compiler TileScope was built
# with (engine/lesson_file_config.hpp): the package that provides it by that
# name. Installed elsewhere than /usr/bin, the programs look for its name on
# PATH (engine/lesson_file_compile.cpp).
get_filename_component(ts_cxx_name ${CMAKE_CXX_COMPILER} NAME)
get_filename_component(ts_cxx_dir ${CMAKE_CXX_COMPILER} DIRECTORY)
string(REGEX MATCH "^[0-9]+" ts_cxx_major "${CMAKE_CXX_COMPILER_VERSION}")
if(ts_cxx_name MATCHES "^g\\+\\+-([0-9]+)$")
  set(ts_compiler_package "g++-${CMAKE_MATCH_1}")
elseif(ts_cxx_name MATCHES "^clang\\+\\+-([0-9]+)$")
  set(ts_compiler_package "clang-${CMAKE_MATCH_1}")
elseif(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(ts_compiler_package "clang (>= 1:${ts_cxx_major})")
else()  # c++, g++: Debian's g++ (epoch 4) of at least this major version
  set(ts_compiler_package "g++ (>= 4:${ts_cxx_major})")
endif()
if(NOT ts_cxx_dir STREQUAL "/usr/bin")
  message(STATUS "Package: the compiler ${CMAKE_CXX_COMPILER} is not in /usr/bin; the installed "
                 "programs compile lesson files with ${ts_cxx_name} found on PATH")
endif()
set(ts_depends "${ts_compiler_package}")
if(TARGET tilescope)
  # The window's fonts (app/shell/fonts_themes.cpp finds them on the system).
  string(APPEND ts_depends ", fonts-dejavu-core")
  # A software OpenGL where there is no GPU driver; ffmpeg writes MP4 exports.
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libgl1-mesa-dri, ffmpeg")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${ts_depends}")
include(CPack)

# ---- The test: the package, unpacked into an empty folder, alone ----
if(TS_BUILD_TESTS AND TARGET tilescope-cli AND NOT CMAKE_CROSSCOMPILING)
  set(ts_window "")
  if(TARGET tilescope)
    set(ts_window tilescope)
  endif()
  add_test(NAME Package.InstalledTreeAloneGradesPuzzles
           COMMAND ${PROJECT_SOURCE_DIR}/tests/package/test_package.sh)
  set(ts_env CPACK=${CMAKE_CPACK_COMMAND} BUILD_DIR=${PROJECT_BINARY_DIR}
      SOURCE_DIR=${PROJECT_SOURCE_DIR} VERSION=${PROJECT_VERSION} WINDOW=${ts_window}
      HAVE_CUDA=${TS_HAVE_CUDA})
  set_tests_properties(Package.InstalledTreeAloneGradesPuzzles PROPERTIES
                       LABELS cpu TIMEOUT 600 SKIP_RETURN_CODE 77 ENVIRONMENT "${ts_env}")
endif()
