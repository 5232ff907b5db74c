# kvg_find_python(<out-var> MODULES <module>... [FOR <what>] [HINT <text>]
#                 [OPTIONAL])
#
# Sets <out-var> (a normal variable in the caller's scope) to a Python 3
# interpreter that can import every <module>, or stops configuring with a
# message that says which Debian packages to install (with OPTIONAL: sets
# <out-var> to "" and only warns, so the caller can leave its tests out and
# say so). Candidates, in order:
# -DKVG_PYTHON=..., Debian's /usr/bin/python3 (the one apt's python3-* packages
# are for), then python3 on PATH. A python3 earlier on PATH (pyenv, a venv)
# often lacks NumPy, so it is tried last, not first.
#
#   kvg_find_python(KVG_NUMPY_PYTHON MODULES numpy FOR "the vector regeneration test")
#   kvg_find_python(_py MODULES numpy pytest torch FOR "the torch reference tests")

function(kvg_find_python out)
  cmake_parse_arguments(P "OPTIONAL" "FOR;HINT" "MODULES" ${ARGN})
  list(JOIN P_MODULES ", " _modules)
  find_program(KVG_PATH_PYTHON3 python3)
  set(_candidates ${KVG_PYTHON} /usr/bin/python3 ${KVG_PATH_PYTHON3})
  list(REMOVE_DUPLICATES _candidates)
  set(_imports "import sys")
  foreach(_m IN LISTS P_MODULES)
    string(APPEND _imports "; import ${_m}")
  endforeach()
  set(_tried "")
  foreach(_py IN LISTS _candidates)
    if(NOT _py)
      continue()
    elseif(NOT EXISTS "${_py}")
      string(APPEND _tried "\n  ${_py}: does not exist")
      continue()
    endif()
    execute_process(COMMAND "${_py}" -c "${_imports}"
      RESULT_VARIABLE _rv OUTPUT_QUIET ERROR_VARIABLE _err)
    if(_rv EQUAL 0)
      set(${out} "${_py}" PARENT_SCOPE)
      message(STATUS "kvgold: Python with ${_modules}: ${_py}")
      return()
    endif()
    string(STRIP "${_err}" _err)
    string(REGEX REPLACE ".*\n" "" _err "${_err}") # the last line says why
    string(APPEND _tried "\n  ${_py}: ${_err}")
  endforeach()
  set(_pkgs "")
  foreach(_m IN LISTS P_MODULES)
    list(APPEND _pkgs python3-${_m}) # numpy, pytest, torch: Debian's names
  endforeach()
  list(JOIN _pkgs " " _pkgs)
  if(NOT P_FOR)
    set(P_FOR "this build")
  endif()
  set(_severity FATAL_ERROR)
  if(P_OPTIONAL)
    set(_severity WARNING)
    set(${out} "" PARENT_SCOPE)
  endif()
  message(${_severity}
    "kvgold: ${P_FOR} needs Python 3 with ${_modules}; none found.\n"
    "Tried:${_tried}\n"
    "Fix: install Debian's packages for /usr/bin/python3:\n"
    "  sudo apt-get install -y python3 ${_pkgs}\n"
    "(or run sh tools/setup-debian.sh as root). A python3 first on PATH "
    "(pyenv, a venv) does not see them; that is fine, /usr/bin/python3 is "
    "tried first. Or pass -DKVG_PYTHON=/path/to/python3 that has them. "
    "${P_HINT}")
endfunction()
