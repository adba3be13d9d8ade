#include "tra/comm/agreement.hpp"

#include <climits>
#include <filesystem>

#include "tra/common/error.hpp"

namespace tra::comm {

void agree_on(const Communicator& c, const std::string& failure) {
  int first = failure.empty() ? INT_MAX : c.rank();
  TRA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, c.get()));
  if (first == INT_MAX) return;
  const std::string message = c.broadcast(failure, first);
  // Rank 0 prints it; say whose it was when rank 0 itself was fine.
  throw UserError(first == 0 || c.size() == 1 ? message : message + " (on rank " + std::to_string(first) + ")");
}

void agree(const Communicator& c, const std::function<void()>& stage) {
  std::string failure;
  try {
    stage();
  } catch (const UserError& e) {
    failure = e.what();
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that the system refuses (a symlink loop, a name
    // too long, no permission): the user's to fix, not an internal error.
    failure = e.what();
  }
  agree_on(c, failure);
}

}  // namespace tra::comm
