# Installs the built library into a scratch prefix, then configures, builds and runs a separate
# project that finds it with find_package(impulse): the README's recipe, kept from rotting.
set(work ${BINARY_DIR}/packaging-test)
file(REMOVE_RECURSE ${work})

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

run_step(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${work}/prefix)
run_step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/consumer -B ${work}/build
         -DCMAKE_PREFIX_PATH=${work}/prefix -DCMAKE_BUILD_TYPE=Release
         "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}")
run_step(${CMAKE_COMMAND} --build ${work}/build)
run_step(${work}/build/consumer)
