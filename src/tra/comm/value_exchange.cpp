#include "tra/comm/value_exchange.hpp"

#include <climits>

#include "tra/common/error.hpp"

namespace tra::comm {

namespace {

int mpi_count(Index n) {
  TRA_ASSERT(n >= 0 && n <= INT_MAX, "an exchange of " + std::to_string(n) + " values with one rank (at most 2^31 - 1)");
  return static_cast<int>(n);
}

// Displacements of consecutive blocks of `counts`.
std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  long long at = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    d[r] = mpi_count(at);
    at += counts[r];
  }
  mpi_count(at);
  return d;
}

}  // namespace

std::vector<Scalar> exchange_values(const Communicator& c, const std::vector<std::vector<Scalar>>& to_rank, const std::vector<Index>& from_counts,
                                    Moved& moved) {
  const size_t n = static_cast<size_t>(c.size()), me = static_cast<size_t>(c.rank());
  TRA_ASSERT(to_rank.size() == n && from_counts.size() == n, "an exchange names every rank");
  std::vector<int> send_counts(n, 0), recv_counts(n, 0);
  std::vector<Scalar> send;
  for (size_t r = 0; r < n; ++r) {
    if (r == me) continue;
    send_counts[r] = mpi_count(static_cast<Index>(to_rank[r].size()));
    recv_counts[r] = mpi_count(from_counts[r]);
    send.insert(send.end(), to_rank[r].begin(), to_rank[r].end());
    moved.floats += static_cast<Index>(to_rank[r].size());
  }
  const std::vector<int> sdispl = displacements(send_counts), rdispl = displacements(recv_counts);
  std::vector<Scalar> recv(static_cast<size_t>(rdispl.back()) + static_cast<size_t>(recv_counts.back()));
  TRA_MPI_CHECK(
      MPI_Alltoallv(send.data(), send_counts.data(), sdispl.data(), MPI_DOUBLE, recv.data(), recv_counts.data(), rdispl.data(), MPI_DOUBLE, c.get()));
  return recv;
}

std::vector<Scalar> gather_values(const Communicator& c, const std::vector<Scalar>& mine, Moved& moved) {
  const size_t n = static_cast<size_t>(c.size());
  const int each = mpi_count(static_cast<Index>(mine.size()));
  mpi_count(static_cast<Index>(mine.size() * n));
  std::vector<Scalar> all(mine.size() * n);
  TRA_MPI_CHECK(MPI_Allgather(mine.data(), each, MPI_DOUBLE, all.data(), each, MPI_DOUBLE, c.get()));
  moved.floats += static_cast<Index>(mine.size()) * static_cast<Index>(n - 1);
  return all;
}

std::vector<Scalar> share_values(const Communicator& c, std::vector<Scalar> all, const std::vector<Index>& counts, Moved& moved) {
  const size_t n = static_cast<size_t>(c.size()), me = static_cast<size_t>(c.rank());
  TRA_ASSERT(counts.size() == n, "a share names every rank");
  std::vector<int> recv_counts(n);
  for (size_t r = 0; r < n; ++r) recv_counts[r] = mpi_count(counts[r]);
  const std::vector<int> displ = displacements(recv_counts);
  TRA_ASSERT(all.size() == static_cast<size_t>(displ.back()) + static_cast<size_t>(recv_counts.back()), "a share's buffer holds every block");
  TRA_MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), recv_counts.data(), displ.data(), MPI_DOUBLE, c.get()));
  moved.floats += counts[me] * static_cast<Index>(n - 1);
  return all;
}

}  // namespace tra::comm
