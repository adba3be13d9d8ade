// The deck's tensors: each tensor's name, shape, chunking, source (a generator or an HDF5 dataset, a selection of it), parameter and batch flags.
#include "tra/io/deck/deck_sections.hpp"
#include "tra/io/hdf5/coordinate_lists.hpp"
#include "tra/io/hdf5/dataset_extents.hpp"
#include "tra/io/hdf5/filled_layout.hpp"

namespace tra::io::deck {
namespace {

class TensorsSection : public DeckValues {
 public:
  explicit TensorsSection(const DeckValues& values) : DeckValues(values) {}

  void read_tensors(const YAML::Node& list, Workflow& wf) {
    if (!list.IsSequence()) fail(list, "'tensors' must be a list of tensors, each with name, shape and source");
    std::set<std::string> seen;
    for (const auto& t : list) {
      if (!t.IsMap()) fail(t, "each tensor is a mapping with name, shape, optional chunk, and source");
      check_keys(t, {"name", "shape", "chunk", "source", "param", "batch", "constraint"}, "a tensor");
      TensorDecl d;
      d.loc = loc(t);
      d.name = scalar(t, "name", "a tensor");
      if (!is_identifier(d.name)) fail(t["name"], "tensor name '" + d.name + "' must be a letter or '_' followed by letters, digits or '_'");
      if (!seen.insert(d.name).second) fail(t["name"], "tensor '" + d.name + "' is declared twice");
      const YAML::Node src = t["source"];
      if (!src) fail(t, "tensor '" + d.name + "' needs 'source': a generator such as uniform(-1, 1, 7) or {file: ..., dataset: ...}");
      if (t["shape"]) {
        d.shape = shape(t["shape"], "shape");
        if (d.shape.empty()) fail(t["shape"], "shape must have at least one extent (a scalar is written [1])");
      } else if (!src.IsMap()) {
        fail(t, "tensor '" + d.name + "' needs 'shape' (only an HDF5 source, {file: ..., dataset: ...}, gives its own)");
      }
      if (src.IsScalar()) {
        if (t["batch"])
          fail(t["batch"], "tensor '" + d.name + "': batches are read from an HDF5 source ({file: ..., dataset: ...}), not from a generator");
        d.source = parse_generator(src.as<std::string>(), text_loc(src));
      } else if (src.IsMap() && (src["rows"] || src["index"])) {
        d.source = read_sparse_source(src, t, d);
      } else if (src.IsMap()) {
        d.source = read_hdf5_source(src, d);
      } else {
        fail(src, "'source' must be a generator string or {file: ..., dataset: ...}");
      }
      const YAML::Node shape_node = t["shape"] ? t["shape"] : src;
      if (d.shape.size() > static_cast<size_t>(kMaxRank)) fail(shape_node, "tensors of rank above 8 are not supported");
      if (const YAML::Node b = t["batch"]) d.batch = read_batch(b, d);
      if (auto* s = std::get_if<model::SparseSource>(&d.source)) check_index_rows(*s, t, d);
      if (t["chunk"]) {
        d.chunk = shape(t["chunk"], "chunk");
        if (d.chunk->size() != d.shape.size())
          fail(t["chunk"], "chunk has " + std::to_string(d.chunk->size()) + " extents but shape has " + std::to_string(d.shape.size()));
        for (size_t i = 0; i < d.shape.size(); ++i)
          if (d.shape[i] % (*d.chunk)[i] != 0)
            fail(t["chunk"], "chunk extent " + std::to_string((*d.chunk)[i]) + " does not divide shape extent " + std::to_string(d.shape[i]) +
                                 " (dimension " + std::to_string(i) + ")");
      }
      if (const YAML::Node p = t["param"]) {
        d.param_loc = loc(p);
        if (!p.IsScalar() || (p.as<std::string>() != "true" && p.as<std::string>() != "false")) fail(p, "'param' is true or false");
        d.param = p.as<std::string>() == "true";
      }
      if (const YAML::Node c = t["constraint"]) {
        if (!c.IsScalar() || c.as<std::string>() != "nonnegative") fail(c, "'constraint' is nonnegative (the only projection built)");
        if (!d.param) fail(c, "tensor '" + d.name + "': a constraint applies to a parameter (param: true)");
        d.nonnegative = true;
      }
      wf.tensors.push_back(d);
    }
  }

  // {file: F, rows: R, cols: C, values: V}: a sparse 2-D tensor holding the
  // entries the coordinate lists give, counted now (the planner sizes the
  // relation by them), with the rows and columns each block of each grid
  // holds (what it charges a shuffle of a product by). Its shape is the
  // deck's; it is data, read whole (no batches) and never trained.
  // {file: F, index: H}: an index list, the one-hot [rows, cols] tensor with
  // entry i at (i, H[i]), value 1 (an embedding lookup's relation); data,
  // which may be read in batches of rows.
  model::SparseSource read_sparse_source(const YAML::Node& src, const YAML::Node& tensor, const TensorDecl& d) const {
    const bool index = static_cast<bool>(src["index"]);
    if (index) check_keys(src, {"file", "index"}, "an index source");
    else check_keys(src, {"file", "rows", "cols", "values"}, "a sparse source");
    model::SparseSource s;
    s.file = resolve(scalar(src, "file", index ? "an index source" : "a sparse source"));
    if (index) {
      s.cols = scalar(src, "index", "an index source");
    } else {
      s.rows = scalar(src, "rows", "a sparse source");
      s.cols = scalar(src, "cols", "a sparse source");
      s.values = scalar(src, "values", "a sparse source");
    }
    for (const char* key : {"rows", "cols", "values", "index"})
      if (src[key] && src[key].IsScalar() && src[key].Scalar().empty())
        fail(src[key], "tensor '" + d.name + "': '" + key + "' names a dataset of '" + s.file + "'; it is empty");
    if (d.shape.size() != 2)
      fail(tensor["shape"] ? tensor["shape"] : tensor, "tensor '" + d.name + "': a sparse tensor is 2-D; give its shape, as [rows, cols]");
    for (const char* key : {"batch", "param", "constraint"})
      if (tensor[key] && !(index && std::string(key) == "batch"))
        fail(tensor[key], "tensor '" + d.name +
                              (index ? "': an index list is data: it takes no '" : "': a sparse tensor is data read whole: it takes no '") + key +
                              "'");
    try {
      s.entries = hdf5::coordinate_count({s.file, s.rows, s.cols, s.values});
      if (!index) s.filled = std::make_shared<const FilledLayout>(hdf5::filled_layout({s.file, s.rows, s.cols, s.values}, d.shape));
    } catch (const UserError& e) {
      throw UserError(loc(tensor), "tensor '" + d.name + "': " + e.what());
    }
    return s;
  }

  // An index list holds one entry per row of its tensor (of the whole
  // tensor, for one read in batches, which go along the rows); the planner
  // sizes the graph's tensor (one batch) by its rows.
  void check_index_rows(model::SparseSource& s, const YAML::Node& tensor, const TensorDecl& d) const {
    if (!s.index_list()) return;
    if (d.batch && d.batch->dim != 0)
      fail(tensor["batch"]["dim"],
           "tensor '" + d.name + "': an index list is read in batches of rows (dim 0), not along dimension " + std::to_string(d.batch->dim));
    const Index rows = d.source_shape()[0];
    if (s.entries != rows)
      fail(tensor["shape"], "tensor '" + d.name + "': the index '" + s.cols + "' of '" + s.file + "' holds " + std::to_string(s.entries) +
                                " entries, one per row, but the tensor's shape has " + std::to_string(rows) + " rows");
    s.entries = d.shape[0];
  }

  // {file: F, dataset: D, select: {start: [..], count: [..]}}. Without a
  // shape in the deck the tensor takes the selection's count, else the
  // dataset's extents past `start` (the file is opened to read them).
  Hdf5Source read_hdf5_source(const YAML::Node& src, TensorDecl& d) const {
    check_keys(src, {"file", "dataset", "select"}, "an HDF5 source");
    Hdf5Source h;
    h.file = resolve(scalar(src, "file", "an HDF5 source"));
    h.dataset = scalar(src, "dataset", "an HDF5 source");
    std::optional<Shape> count;
    const YAML::Node sel = src["select"];
    if (sel) {
      if (!sel.IsMap()) fail(sel, "'select' is a mapping {start: [0, 0], count: [100, 64]}: the part of the dataset the tensor holds");
      check_keys(sel, {"start", "count"}, "select");
      if (!sel["start"]) fail(sel, "'select' needs 'start' (the first element read, as [0, 0]); 'count' defaults to the tensor's shape");
      if (!sel["start"].IsSequence()) fail(sel["start"], "select start must be a list of integers at least 0, such as [100, 0]");
      for (const auto& e : sel["start"]) h.start.push_back(integer(e, "each extent of select start", 0));
      if (sel["count"]) count = shape(sel["count"], "select count");
      if (count && count->size() != h.start.size())
        fail(sel["count"], "select count has " + std::to_string(count->size()) + " extents but start has " + std::to_string(h.start.size()));
    }
    if (d.shape.empty()) {
      if (count) {
        d.shape = *count;
      } else {
        // The file's own extents, checked by the reader as it will read them.
        const Shape dims = hdf5::dataset_extents(d, h);
        if (!h.start.empty() && h.start.size() != dims.size())
          fail(sel["start"], "select start has " + std::to_string(h.start.size()) + " extents but dataset '" + h.dataset + "' has rank " +
                                 std::to_string(dims.size()) + " (shape " + shape_string(dims) + ")");
        for (size_t i = 0; i < dims.size(); ++i) {
          const Index from = h.start.empty() ? 0 : h.start[i];
          if (from >= dims[i])
            fail(sel["start"], "select start " + shape_string(h.start) + " lies outside dataset '" + h.dataset + "' of shape " + shape_string(dims));
          d.shape.push_back(dims[i] - from);
        }
      }
    } else if (count && *count != d.shape) {
      fail(sel["count"], "select count " + shape_string(*count) + " differs from the tensor's shape " + shape_string(d.shape) + "; give one of them");
    }
    if (!h.start.empty() && h.start.size() != d.shape.size())
      fail(sel["start"], "select start has " + std::to_string(h.start.size()) + " extents but the tensor's shape " + shape_string(d.shape) + " has " +
                             std::to_string(d.shape.size()));
    return h;
  }

  // batch: {dim: D, size: B} on a tensor whose shape is its dataset's: the
  // graph sees B rows along D.
  model::BatchSpec read_batch(const YAML::Node& b, TensorDecl& d) const {
    if (!b.IsMap()) fail(b, "'batch' is a mapping {dim: D, size: B}: B rows along dimension D per iteration");
    check_keys(b, {"dim", "size"}, "batch");
    model::BatchSpec spec;
    spec.loc = loc(b);
    if (!b["dim"] || !b["size"]) fail(b, "'batch' needs 'dim' and 'size'");
    const Index dim = integer(b["dim"], "batch dim", 0, kMaxRank - 1);
    if (dim >= static_cast<Index>(d.shape.size()))
      fail(b["dim"], "batch dim " + std::to_string(dim) + " is not a dimension of tensor '" + d.name + "' (shape " + shape_string(d.shape) + ")");
    spec.dim = static_cast<int>(dim);
    spec.size = integer(b["size"], "batch size", 1);
    spec.rows = d.shape[static_cast<size_t>(dim)];
    if (spec.rows % spec.size != 0)
      fail(b["size"], "batch size " + std::to_string(spec.size) + " does not divide the " + std::to_string(spec.rows) + " rows of tensor '" + d.name +
                          "' along dimension " + std::to_string(dim));
    d.shape[static_cast<size_t>(dim)] = spec.size;
    return spec;
  }
};

}  // namespace

void read_tensors(const DeckValues& values, const YAML::Node& list, Workflow& wf) { TensorsSection(values).read_tensors(list, wf); }

}  // namespace tra::io::deck
