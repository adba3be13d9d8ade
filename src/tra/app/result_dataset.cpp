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

io::hdf5::DatasetData host_dataset(const exec::HostTensor& t, const Shape& chunk_shape, const std::string& dataset, const comm::Communicator& c) {
  io::hdf5::DatasetData ds;
  ds.dataset = dataset;
  ds.tensor_shape = t.shape;
  Shape grid(t.shape.size());
  for (size_t d = 0; d < grid.size(); ++d) {
    TRA_ASSERT(t.shape[d] % chunk_shape[d] == 0, "chunks tile the tensor");
    grid[d] = t.shape[d] / chunk_shape[d];
  }
  for_each_key(grid, [&](const Key& key) {
    if (linearize(key, grid) % c.size() == c.rank()) ds.local.push_back({key, exec::slice(t, chunk_shape, key)});
  });
  return ds;
}

}  // namespace tra::app
