#pragma once
// The model of a workflow: what a deck describes, validated — tensors and
// where their data comes from, the graph of statements in order, what to write
// where, and run options. io/deck reads a deck into it; the planning layers
// (logical, decomp, physical) read it; it depends on nothing above einsum.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tra/common/dtype.hpp"
#include "tra/common/error.hpp"
#include "tra/core/filled_lines.hpp"
#include "tra/core/key.hpp"
#include "tra/einsum/statement.hpp"

namespace tra::model {

struct Generator {
  enum class Kind { Uniform, Normal, Zeros, Ones, Identity, Arange } kind = Kind::Zeros;
  double a = 0, b = 1;  // uniform(low, high, seed) / normal(mean, stddev, seed) / arange(start, step)
  std::uint64_t seed = 0;
  std::string str() const;
  bool operator==(const Generator& o) const { return kind == o.kind && a == o.a && b == o.b && seed == o.seed; }
};

struct Hdf5Source {
  std::string file;  // resolved against the deck's folder
  std::string dataset;
  // select: {start, count} — the tensor is the hyperslab of the dataset that
  // starts here (empty: at 0) and has the tensor's shape.
  Shape start;
  bool operator==(const Hdf5Source& o) const { return file == o.file && dataset == o.dataset && start == o.start; }
};

// A sparse 2-D tensor's data: HDF5 coordinate lists, one entry per stored
// element (io/hdf5/coordinates.hpp), counted when the deck is read. An index
// list ({file, index: /h}) gives only `cols`: entry i is at (i, h[i]) with
// value 1, the one-hot relation of an embedding lookup; it may be read in
// batches of rows.
struct SparseSource {
  std::string file;  // resolved against the deck's folder
  std::string rows, cols, values;  // dataset paths (an index list: only cols)
  Index entries = 0;  // entries in the graph's tensor (one batch's): what the planner sizes the relation by
  // Rows and columns of each block holding an entry, per grid (counted
  // with the entries; null for an index list, whose batches differ): what
  // the planner charges a shuffle of a sparse product's rows by.
  std::shared_ptr<const FilledLayout> filled;
  bool index_list() const { return rows.empty(); }
  bool operator==(const SparseSource& o) const { return file == o.file && rows == o.rows && cols == o.cols && values == o.values; }
};

// batch: {dim: D, size: B} — a training deck's data, read B rows along D per
// iteration (model/batch_order.hpp says which rows).
struct BatchSpec {
  int dim = 0;
  Index size = 0;  // rows per iteration: the tensor's extent along dim in the graph
  Index rows = 0;  // the dataset's extent along dim
  Index held_out = 0;  // its last rows, kept out of training (train: accuracy:)
  SourceLoc loc;
  Index batches() const { return (rows - held_out) / size; }
  bool operator==(const BatchSpec& o) const { return dim == o.dim && size == o.size && rows == o.rows && held_out == o.held_out; }
};

struct TensorDecl {
  std::string name;
  Shape shape;  // as the graph sees it: a batch tensor's is one batch
  std::optional<Shape> chunk;  // chunk shape, if the deck fixes it
  std::variant<Generator, Hdf5Source, SparseSource> source;
  SourceLoc loc;
  bool param = false;  // param: true — trained (train:); `source` gives its initial values
  SourceLoc param_loc;
  // constraint: nonnegative — a parameter projected onto x >= 0 after every
  // update (NNMF's factors), as clamp_(min=0) after optimizer.step().
  bool nonnegative = false;
  std::optional<BatchSpec> batch;
  // The shape of the data behind the tensor: a batch tensor's whole dataset.
  Shape source_shape() const;
  // Data: read from a file (a dataset or coordinate lists) and not trained.
  // A training run may keep it after its first read (exec/input_cache.hpp).
  bool is_data() const { return !param && !std::holds_alternative<Generator>(source); }
  // The same tensor read the same way (where the deck says so does not count).
  bool same_data(const TensorDecl& o) const {
    return name == o.name && shape == o.shape && chunk == o.chunk && source == o.source && batch == o.batch;
  }
};

// A statement of the TRA that EinSum does not say (TRA paper §3.1).
struct TraStatement {
  enum class Op { Filter, ReKey, Transform, Tile, Concat } op = Op::Filter;
  std::string input, output;
  std::string expr;  // filter predicate, rekey map, or transform kernel ("diag", "relu(x)")
  SourceLoc expr_loc;
  int dim = 0;  // tile: array dim; concat: array dim
  int key_dim = 0;  // concat: key dim
  Index size = 0;  // tile: tile size
  SourceLoc loc;
  std::string str() const;
};

using Statement = std::variant<einsum::EinSum, TraStatement>;

// How an output dataset is stored (outputs: dtype, chunks, gzip).
struct OutputStorage {
  bool float32 = false;  // 32-bit floats (rounded on writing), else 64-bit
  Shape chunks;  // HDF5 chunked layout with these extents; empty: contiguous (gzip: the plan's chunks)
  int gzip = 0;  // deflate level 1..9; 0: uncompressed
  // What a dataset of `shape` takes on disk, uncompressed: chunked
  // datasets hold whole chunks at the edges too.
  double stored_bytes(const Shape& shape) const;
  bool operator==(const OutputStorage& o) const { return float32 == o.float32 && chunks == o.chunks && gzip == o.gzip; }
};

struct OutputDecl {
  std::string tensor;
  std::string file;  // as written; relative paths resolve against --output-dir (default: current folder)
  std::string dataset;
  OutputStorage storage;
  bool dtype_given = false;  // `dtype:` written (else the run's dtype decides)
  SourceLoc loc;
};

// run: optimizer: — how the IA plan is chosen (docs/optimizer.md).
struct OptimizerSettings {
  std::vector<std::pair<std::string, SourceLoc>> disable;  // rule names or strategy families
  std::string strategy = "auto";  // or a strategy family every contraction must use
  SourceLoc strategy_loc;
  std::string calibration;  // a tra-calibrate file, resolved against the deck's folder ("" = built-in rates)
  SourceLoc calibration_loc;
};

struct RunOptions {
  enum class DefaultPartitioning { Rows, None } default_partitioning = DefaultPartitioning::Rows;
  // statement output name -> label -> number of parts
  std::map<std::string, std::map<std::string, Index>> partitioning;
  std::map<std::string, SourceLoc> partitioning_loc;
  OptimizerSettings optimizer;
  // run: partitioner: — how the d of statements not named under partitioning
  // is chosen (docs/eindecomp.md). A deck that writes `default:` under
  // partitioning and names no partitioner gets Manual, as before EinDecomp.
  enum class Partitioner { EinDecomp, Sqrt, DataParallel, ModelParallel, Manual } partitioner = Partitioner::EinDecomp;
  SourceLoc partitioner_loc;
  bool default_given = false;  // `default:` written under partitioning
  Index overdecomposition = 1;  // run: overdecomposition: kernel calls per rank, a power of two
  SourceLoc overdecomposition_loc;
  // run: memory_per_rank: bytes a rank may hold ("4 GiB"); 0 = the
  // machine's memory shared by the ranks on it.
  std::int64_t memory_per_rank = 0;
  SourceLoc memory_per_rank_loc;
  // run: dtype: the element type every tensor of the run computes in
  // (float64, the default, or float32).
  DType dtype = DType::Float64;
  SourceLoc dtype_loc;
};

// train: optimizer: — PyTorch's update formulas (torch.optim.SGD, with and
// without momentum, dampening 0, no Nesterov; torch.optim.Adam, no weight
// decay, no amsgrad).
struct UpdateRule {
  enum class Kind { Sgd, Momentum, Adam } kind = Kind::Sgd;
  double lr = 0;  // learning rate
  double beta = 0;  // momentum; Adam's beta1
  double beta2 = 0;  // Adam
  double eps = 0;  // Adam
  SourceLoc loc;
};

// train: — what a training deck optimizes (docs/training.md). With only a
// loss, the deck computes the loss and the gradients of its parameters once;
// with an optimizer it runs `iterations` updates.
struct TrainSettings {
  std::string loss;  // a scalar tensor of the graph
  SourceLoc loss_loc;
  SourceLoc loc;  // where train: is written
  std::optional<UpdateRule> optimizer;
  Index iterations = 0;  // epochs: E is read as E × batches per epoch
  Index epochs = 0;  // as written; 0 = iterations were given
  SourceLoc iterations_loc;  // where iterations: or epochs: is written
  // order: — which batch an iteration reads (model/batch_order.hpp).
  enum class Order { Sequential, Shuffled } order = Order::Sequential;
  std::uint64_t seed = 0;
  SourceLoc order_loc;
  std::string log_file;  // iteration, loss, seconds (CSV); "" = none
  SourceLoc log_loc;
  // checkpoint: {file, every} — parameters, optimizer state and the
  // iteration count, written every `every` iterations (and after the last).
  std::string checkpoint_file;  // "" = none; resolved like outputs
  Index checkpoint_every = 0;
  SourceLoc checkpoint_loc;
  // method: — how the ranks share the training (app/local_rounds.hpp):
  // every step one plan over all ranks (synchronous), or rounds of
  // `local_steps` steps each rank takes alone on its own batches, after
  // which the ranks average their models (local_sgd) or, under Independent
  // Subnet Training (ist, thesis ch. 2), each trains the subnetwork of the
  // hidden neurons dealt to it, drawn afresh each round from `subnet_seed`.
  enum class Method { Synchronous, LocalSgd, Ist } method = Method::Synchronous;
  Index local_steps = 0;  // J (local_sgd, ist)
  std::uint64_t subnet_seed = 0;  // ist's neuron assignments
  SourceLoc method_loc;
  bool by_rounds() const { return method != Method::Synchronous; }
  // accuracy: {predictions: S, targets: T, held_out: N, every: K} — the last
  // N rows of the batch tensors' data are held out of training (the deck
  // reader marks them on every BatchSpec); after every K-th
  // iteration and the last, the current parameters classify them, and the
  // fraction of rows whose largest prediction is where the target's largest
  // entry is, is logged (app/held_out.hpp).
  struct Accuracy {
    std::string predictions, targets;
    Index held_out = 0, every = 0;
    SourceLoc loc, predictions_loc;
  };
  std::optional<Accuracy> accuracy;
};

// params: {n: 512} — a deck value named once and referenced as $n.
struct DeckParam {
  std::string name, value;  // the value after any --set params/NAME=...
  SourceLoc loc;
  bool used = false;  // referenced somewhere in the deck
};

struct Workflow {
  std::string deck_path;
  std::string deck_text;  // as written; overrides and params are applied to what is read
  std::vector<DeckParam> params;
  std::vector<std::string> overrides;  // each --set PATH=VALUE, as given
  std::vector<TensorDecl> tensors;
  std::vector<Statement> graph;
  std::vector<OutputDecl> outputs;
  RunOptions run;
  std::optional<TrainSettings> train;

  const TensorDecl* find_tensor(const std::string& name) const;
};

// The partitioners by name (run: partitioner:, --partitioner), one table.
const char* partitioner_name(RunOptions::Partitioner k);
// A training method as a deck writes it (train: method:).
const char* method_name(TrainSettings::Method m);
std::optional<RunOptions::Partitioner> partitioner_named(const std::string& name);
std::string partitioner_names();  // "eindecomp, sqrt, data-parallel, model-parallel or manual"

const std::string& statement_output(const Statement& s);
const SourceLoc& statement_loc(const Statement& s);
std::vector<std::string> statement_inputs(const Statement& s);
// The graph's results: statement outputs no statement reads, in graph order.
// A deck without outputs computes these (and writes nothing).
std::vector<std::string> graph_sinks(const Workflow& wf);
// What the deck declares or computes and never uses, each with its place:
// a declared tensor no statement, output or train: reads; a statement result
// nothing reads or writes (only when the deck has outputs: without them the
// graph's results are what it computes). For warnings, not errors.
std::vector<std::pair<SourceLoc, std::string>> unused(const Workflow& wf);

}  // namespace tra::model
