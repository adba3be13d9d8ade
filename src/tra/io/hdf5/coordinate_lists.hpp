#pragma once
// HDF5 coordinate lists (issue 30): three 1-D datasets of one length, the
// row and the column of each stored entry of a sparse tensor (integers) and
// its value (floats or integers), opened and checked against each other,
// and read a piece at a time. This part needs no Kokkos: the deck reader
// counts the entries with it (io/hdf5/coordinates.hpp builds the blocks).
#include <hdf5.h>

#include <string>
#include <vector>

#include "tra/core/key.hpp"
#include "tra/io/hdf5/handle.hpp"

namespace tra::io::hdf5 {

// Entries a reader takes from the lists at a time (a few tens of MiB of
// buffers, whatever the lists' length).
inline constexpr hsize_t kCoordinatePiece = hsize_t{1} << 20;

struct CoordinateLists {
  std::string file;
  std::string rows, cols, values;  // dataset paths
  // An index list ({file, index: /h}): only `cols` is given; entry i is at
  // (i, cols[i]) with value 1, the one-hot relation of an embedding lookup
  // E[h[t], d] (a join on keys: sum_e H[t,e] * E[e,d]).
  bool index_list() const { return rows.empty(); }
};

// How many entries the lists hold (their common length): what a planner
// sizes the relation by, known without reading them. UserError (naming the
// file and the dataset) for a missing file or dataset, one that is not 1-D,
// lists of different lengths, coordinates that are not integers, or values
// that are not numbers.
Index coordinate_count(const CoordinateLists& src);

// The lists open for reading, checked as coordinate_count checks them.
class OpenCoordinateLists {
 public:
  explicit OpenCoordinateLists(const CoordinateLists& src);
  hsize_t length() const { return length_; }
  // Entries [from, from + n): rows and columns as int64, values as double
  // (an index list's rows are the entries' places, its values 1).
  void read(hsize_t from, hsize_t n, std::vector<long long>& rows, std::vector<long long>& cols, std::vector<double>& values) const;
  // The same without the values (a reader's counting pass).
  void read_places(hsize_t from, hsize_t n, std::vector<long long>& rows, std::vector<long long>& cols) const;

 private:
  CoordinateLists src_;
  File file_;
  Dataset rows_, cols_, values_;
  hsize_t length_ = 0;
};

}  // namespace tra::io::hdf5
