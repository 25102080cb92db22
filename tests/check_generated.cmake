# Fails when a generated, checked-in file differs from what wnn prints now.
# -DWNN=<binary> -DARGS=<arguments separated by |> -DEXPECTED=<file>
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${WNN} ${ARGS} OUTPUT_VARIABLE actual RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${WNN} ${ARGS} exited with ${rc}")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "${EXPECTED} is stale: regenerate it with `make docs`")
endif()
