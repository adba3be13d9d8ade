#pragma once
// Processor grids (as in COSMA and CTF): the partitioned key dimensions of a
// relation are mapped onto a grid of sites, P[0] x P[1] x ... (product at
// most the number of sites), and a key's coordinate along dimension d is
// key[d] mod P[d] (cyclic, so that one dimension alone places key k on site
// k mod s, as it always did). Without a grid, the row-major position of the
// key modulo s would collapse a multi-dimensional block grid onto the site of
// its last index (10 x 10 x 10 blocks on 10 sites: site = k), and a
// replication-based multiply would be a broadcast in disguise.
#include <vector>

#include "tra/core/key.hpp"

namespace tra {

using ProcGrid = std::vector<Index>;  // sites along each partitioned dimension

// The default grid for dimensions of these extents on `nsites` sites: the
// fewest keys on the busiest site (the product of ceil(extent / P)), then the
// most cubic local block (the smallest largest ceil(extent / P)), then the
// most sites used, then more sites on earlier dimensions. Any count of sites
// (5, 6, 10 …); a dimension of extent e gets at most e sites.
ProcGrid processor_grid(const std::vector<Index>& extents, int nsites);

// Every grid that gives each dimension at least 2 sites (and at most its
// extent), uses at most `nsites` sites, and cannot give any dimension more
// without exceeding them: the grids a join strategy may place its voxels on
// (for a matmul on 8 sites and P = {i, j, k}: 2x2x2; with P = {i, k}: 2x4 and
// 4x2). Empty when no such grid exists. Ordered by processor_grid's criteria.
std::vector<ProcGrid> full_grids(const std::vector<Index>& extents, int nsites);

// The site of coordinates key[d] mod grid[d]: their row-major position in the
// grid, or, with `strides`, sum of coordinate x stride (a relation placed on
// a face of a larger grid, e.g. a matmul's result on the i-k face of the
// i x j x k voxel grid, where one of its partial sums already is).
int grid_site(const Key& key, const std::vector<int>& dims, const ProcGrid& grid, const std::vector<Index>& strides = {});
// Row-major strides of a grid.
std::vector<Index> row_major_strides(const ProcGrid& grid);

std::string grid_str(const ProcGrid& grid);  // "2x2x2"

}  // namespace tra
