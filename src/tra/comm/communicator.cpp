#include "tra/comm/communicator.hpp"

#include "tra/common/error.hpp"

namespace tra::comm {

Communicator::Communicator(MPI_Comm parent) {
  TRA_MPI_CHECK(MPI_Comm_dup(parent, &comm_));
  TRA_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  TRA_MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

int Communicator::ranks_on_node() const { return ranks_on_node_naming(""); }  // every rank gives the same name

int Communicator::ranks_on_node_naming(const std::string& name) const {
  constexpr int kWidth = 64;  // names are cut to this many characters
  MPI_Comm node = MPI_COMM_NULL;
  TRA_MPI_CHECK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
  int n = 1;
  TRA_MPI_CHECK(MPI_Comm_size(node, &n));
  std::string mine = name.substr(0, kWidth);
  mine.resize(kWidth, '\0');
  std::string all(static_cast<size_t>(n) * kWidth, '\0');
  TRA_MPI_CHECK(MPI_Allgather(mine.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, node));
  TRA_MPI_CHECK(MPI_Comm_free(&node));
  int same = 0;
  for (int r = 0; r < n; ++r) same += all.compare(static_cast<size_t>(r) * kWidth, kWidth, mine) == 0 ? 1 : 0;
  return same;
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void Communicator::barrier() const { TRA_MPI_CHECK(MPI_Barrier(comm_)); }

double Communicator::max(double v) const {
  double out = 0;
  TRA_MPI_CHECK(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm_));
  return out;
}

std::string Communicator::broadcast(std::string s, int root) const {
  long long length = static_cast<long long>(s.size());
  TRA_MPI_CHECK(MPI_Bcast(&length, 1, MPI_LONG_LONG, root, comm_));
  s.resize(static_cast<size_t>(length));
  TRA_MPI_CHECK(MPI_Bcast(s.data(), static_cast<int>(length), MPI_CHAR, root, comm_));
  return s;
}

long long Communicator::sum(long long v) const {
  long long out = 0;
  TRA_MPI_CHECK(MPI_Allreduce(&v, &out, 1, MPI_LONG_LONG, MPI_SUM, comm_));
  return out;
}

void Communicator::max(std::vector<double>& v) const {
  TRA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MAX, comm_));
}

void Communicator::sum(std::vector<long long>& v) const {
  TRA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_LONG_LONG, MPI_SUM, comm_));
}

}  // namespace tra::comm
