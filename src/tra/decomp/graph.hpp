#pragma once
// The EinGraph of EinDecomp §5: one vertex per EinSum statement of a deck, with
// its labels, the bound of every label, and for every input either the vertex
// that computes it (a producer → consumer edge) or a boundary tensor.
//
// Boundaries. Declared tensors are boundaries whose initial partitioning is
// free (§8.2: "inputs are generally pre-partitioned, offline, and incur no
// cost"), unless the deck fixes their chunk grid (`chunk:`), in which case
// re-partitioning from that grid is charged. TRA statements (filter, rekey,
// transform, tile, concat) are not vertices: their outputs have shapes that are
// only known once the plan is lowered, so a statement that reads one — or reads
// such a statement's output through other EinSums — is left out of the graph
// and planned later, when lowering reaches it (`given` then supplies the shapes
// and grids of everything lowered so far). TRA statements are thereby graph
// boundaries: nothing is charged across them.
//
// The builder is lenient: a statement it cannot size (unknown tensor, a rank or
// extent mismatch, a name defined twice) is left out, never reported; lowering
// reports those errors with their deck positions.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tra/core/key.hpp"
#include "tra/model/workflow.hpp"

namespace tra::decomp {

using einsum::Label;
using einsum::Labels;

// A partitioning vector d (§4.3): the number of parts of every label of a
// statement, aligned with Vertex::labels. One entry per label, so labels shared
// by the two inputs are partitioned alike (§6).
using Partitioning = std::vector<Index>;

struct Operand {
  std::string tensor;
  std::vector<int> label_pos;  // position in Vertex::labels of each label the input is written with
  Shape shape;  // its extents (the bounds of those labels)
  int producer = -1;  // vertex computing it; -1 for a boundary tensor
  std::optional<Shape> fixed_grid;  // boundary held on a known chunk grid
};

struct Vertex {
  std::string name;  // the output tensor
  SourceLoc loc;
  int statement = -1;  // index in Workflow::graph
  Labels labels;  // every label once: output labels, then aggregated ones (EinSum::all_labels)
  std::vector<int> output_pos;  // ℓZ as positions in labels
  Shape bound;  // per label
  std::vector<Operand> inputs;  // one or two, in the statement's order
  std::vector<int> consumers;  // one entry per consuming operand (a vertex reading this twice appears twice)
  std::optional<Partitioning> pinned;  // d set by the deck's run: partitioning:
  // The batch label (position in labels, -1 for none): bound to the batch
  // dimension of an input, followed from the `batch:` tensors through every
  // statement that reads one — a summed label too (a weight gradient sums it).
  int batch_label = -1;

  int batch_dim() const;  // the output's dimension holding the batch label, -1 for none
  Shape output_shape() const { return project(bound, output_pos); }
  Shape output_grid(const Partitioning& d) const { return project(d, output_pos); }  // d[ℓZ; ℓXY]
  Shape input_grid(const Partitioning& d, size_t k) const { return project(d, inputs[k].label_pos); }  // d[ℓX; ℓXY]
};

struct Graph {
  std::vector<Vertex> vertices;  // in deck order, which is a topological order (statements read earlier ones only)
  std::vector<std::string> left_out;  // EinSum outputs not planned here (they read a TRA output, or cannot be sized)

  int find(const std::string& name) const;  // -1 if absent
};

// A tensor available before the statements being planned: its shape, and the
// grid it is already held on, if any.
struct Boundary {
  Shape shape;
  std::optional<Shape> grid;
};

// The vertex of one EinSum statement with the given label bounds; operands are
// boundaries (free) until build_graph links them.
Vertex make_vertex(const einsum::EinSum& e, const std::map<Label, Index>& bound);

// The graph of the EinSum statements wf.graph[first ...]. Declared tensors are
// boundaries (free, or on their `chunk` grid); `given` adds or overrides
// boundaries (tensors already lowered, TRA outputs).
Graph build_graph(const model::Workflow& wf, const std::map<std::string, Boundary>& given = {}, size_t first = 0);

}  // namespace tra::decomp
