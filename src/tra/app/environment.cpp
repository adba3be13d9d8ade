#include "tra/app/environment.hpp"

#include "tra/comm/agreement.hpp"
#include "tra/kernels/element_evaluators.hpp"

namespace tra::app {

comm::ChunkTransport agree_on_environment(const comm::Communicator& c) {
  const comm::ChunkTransport t = comm::agreed_chunk_transport(c);
  comm::agree(c, [] { static_cast<void>(kernels::compiled_forms_enabled()); });
  return t;
}

}  // namespace tra::app
