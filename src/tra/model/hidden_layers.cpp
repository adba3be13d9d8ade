#include "tra/model/hidden_layers.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "tra/common/split_mix64.hpp"

namespace tra::model {

namespace {

// Union–find over (tensor, dimension) pairs, numbered as first met.
class DimClasses {
 public:
  int id(const std::string& tensor, int dim) {
    auto [it, added] = ids_.emplace(std::make_pair(tensor, dim), static_cast<int>(parent_.size()));
    if (added) parent_.push_back(it->second);
    return it->second;
  }
  int root(int x) {
    while (parent_[static_cast<size_t>(x)] != x) x = parent_[static_cast<size_t>(x)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(x)])];
    return x;
  }
  void join(int a, int b) { parent_[static_cast<size_t>(root(a))] = root(b); }

 private:
  std::map<std::pair<std::string, int>, int> ids_;
  std::vector<int> parent_;
};

}  // namespace

std::string HiddenLayer::name() const { return dims.empty() ? "?" : dims.front().tensor + " dim " + std::to_string(dims.front().dim); }

std::vector<HiddenLayer> hidden_layers(const Workflow& wf, const std::set<std::string>& trained) {
  DimClasses classes;
  for (const Statement& s : wf.graph) {
    const auto* e = std::get_if<einsum::EinSum>(&s);
    if (!e)
      throw UserError(statement_loc(s), "method ist cuts subnetworks out of EinSum statements; this TRA statement (" +
                                            std::get<TraStatement>(s).str() + ") has no hidden layer IST can deal out");
    std::map<std::string, int> first;  // label -> the first pair written with it
    auto tie = [&](const einsum::TensorRef& ref) {
      for (size_t d = 0; d < ref.labels.size(); ++d) {
        const int id = classes.id(ref.name, static_cast<int>(d));
        auto [it, added] = first.emplace(ref.labels[d], id);
        if (!added) classes.join(id, it->second);
      }
    };
    tie(e->output);
    for (const auto& in : e->inputs) tie(in);
  }
  // A class is hidden while no untrained declared tensor has a dimension in it.
  std::map<int, bool> cut_off;  // root -> holds an untrained declared dimension
  for (const TensorDecl& t : wf.tensors)
    for (size_t d = 0; d < t.shape.size(); ++d) {
      const int r = classes.root(classes.id(t.name, static_cast<int>(d)));
      cut_off[r] = cut_off[r] || !trained.count(t.name);
    }
  std::vector<HiddenLayer> layers;
  std::map<int, size_t> layer_of_root;
  for (const TensorDecl& t : wf.tensors) {
    if (!trained.count(t.name)) continue;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      const int r = classes.root(classes.id(t.name, static_cast<int>(d)));
      if (cut_off[r]) continue;
      auto [it, added] = layer_of_root.emplace(r, layers.size());
      if (added) layers.push_back({t.shape[d], {}});
      layers[it->second].dims.push_back({t.name, static_cast<int>(d)});
    }
  }
  return layers;
}

std::vector<int> layers_of(const std::vector<HiddenLayer>& layers, const std::string& tensor, int rank) {
  std::vector<int> out(static_cast<size_t>(rank), -1);
  for (size_t l = 0; l < layers.size(); ++l)
    for (const HiddenDim& d : layers[l].dims)
      if (d.tensor == tensor) out.at(static_cast<size_t>(d.dim)) = static_cast<int>(l);
  return out;
}

std::vector<std::vector<Index>> deal_neurons(std::uint64_t seed, Index round, int layer, Index size, int sites) {
  TRA_ASSERT(sites > 0 && size % sites == 0, "a hidden layer of " + std::to_string(size) + " neurons dealt to " + std::to_string(sites) + " sites");
  std::vector<Index> order(static_cast<size_t>(size));
  std::iota(order.begin(), order.end(), Index{0});
  SplitMix64 rng{seed ^ (static_cast<std::uint64_t>(round) * 0xD1B54A32D192ED03ULL) ^
                 (static_cast<std::uint64_t>(layer + 1) * 0xA24BAED4963EE407ULL)};
  for (Index i = size - 1; i > 0; --i) {
    const auto j = static_cast<Index>(rng.next() % static_cast<std::uint64_t>(i + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  const Index each = size / sites;
  std::vector<std::vector<Index>> dealt(static_cast<size_t>(sites));
  for (int s = 0; s < sites; ++s) {
    auto& mine = dealt[static_cast<size_t>(s)];
    mine.assign(order.begin() + s * each, order.begin() + (s + 1) * each);
    std::sort(mine.begin(), mine.end());
  }
  return dealt;
}

}  // namespace tra::model
