#include "tra/app/result_dataset.hpp"

namespace tra::app {

io::hdf5::DatasetData result_dataset(const exec::Executor& ex, const physical::IaPlan& plan, int node, const std::string& dataset,
                                     const comm::Communicator& c) {
  const physical::IaNode& n = plan.node(node);
  io::hdf5::DatasetData ds;
  ds.dataset = dataset;
  ds.tensor_shape = n.type.tensor_shape();
  for (const Tuple& t : ex.result(node)) {
    if (n.dist.everywhere && linearize(t.key, n.type.frontier) % c.size() != c.rank()) continue;
    ds.local.push_back(t);
  }
  return ds;
}

}  // namespace tra::app
