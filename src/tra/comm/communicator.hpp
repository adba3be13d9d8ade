#pragma once
// The engine's own duplicate of the user's communicator, freed by RAII, so that
// TRA's collectives never match messages of the host program (the Cabana habit).
#include <mpi.h>

#include <string>
#include <vector>

namespace tra::comm {

class Communicator {
 public:
  explicit Communicator(MPI_Comm parent = MPI_COMM_WORLD);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  void barrier() const;
  // Ranks of this communicator on this rank's node (sharing its memory).
  int ranks_on_node() const;
  // How many ranks of this node (this one included) give the same `name`
  // as this rank: a GPU's bus id, say. Collective.
  int ranks_on_node_naming(const std::string& name) const;
  double max(double v) const;
  // `root`'s string on every rank.
  std::string broadcast(std::string s, int root = 0) const;
  long long sum(long long v) const;
  // Element by element over the ranks, in place: one collective for many values.
  void max(std::vector<double>& v) const;
  void sum(std::vector<long long>& v) const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace tra::comm
