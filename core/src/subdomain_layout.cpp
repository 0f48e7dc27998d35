#include "trellis/partition/subdomain_layout.hpp"

#include <algorithm>
#include <numeric>

#include "trellis/core/errors.hpp"

namespace trellis {

ordinal_t SubdomainLayout::largest_subdomain() const {
  ordinal_t m = 0;
  for (size_t s = 0; s + 1 < sub_start.size(); ++s) m = std::max(m, sub_start[s + 1] - sub_start[s]);
  return m;
}

SubdomainLayout group_rows_by_part(const Partition& partition) {
  const ordinal_t n = ordinal_t(partition.part.size());
  std::vector<ordinal_t> count(size_t(partition.num_parts) + 1, 0);
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t p = partition.part[i];
    if (p < 0 || p >= partition.num_parts)
      throw InputError("partition: row " + std::to_string(i) + " has part " + std::to_string(p) + ", outside [0, " +
                       std::to_string(partition.num_parts) + ")");
    ++count[p + 1];
  }
  std::partial_sum(count.begin(), count.end(), count.begin());
  SubdomainLayout layout;
  layout.new_to_old.resize(n);
  std::vector<ordinal_t> next(count.begin(), count.end() - 1);
  for (ordinal_t i = 0; i < n; ++i) layout.new_to_old[next[partition.part[i]]++] = i;
  layout.sub_start.push_back(0);
  for (ordinal_t p = 0; p < partition.num_parts; ++p)
    if (count[p + 1] > count[p]) layout.sub_start.push_back(count[p + 1]);
  return layout;
}

SubdomainLayout geometric_layout(GridDims grid, GridDims box) {
  for (int d = 0; d < 3; ++d) {
    if (grid[d] < 1)
      throw InputError("geometric partition: grid dimension " + std::to_string(d) + " must be positive, got " +
                       std::to_string(grid[d]));
    if (box[d] < 1)
      throw InputError("geometric partition: box dimension " + std::to_string(d) + " must be positive, got " +
                       std::to_string(box[d]));
  }
  SubdomainLayout layout;
  layout.new_to_old.reserve(size_t(grid[0]) * grid[1] * grid[2]);
  layout.sub_start.push_back(0);
  // Boxes in part order (x fastest, as geometric_partition numbers them), and
  // inside a box the points in increasing original index (z, y, x loops).
  for (ordinal_t z0 = 0; z0 < grid[2]; z0 += box[2])
    for (ordinal_t y0 = 0; y0 < grid[1]; y0 += box[1])
      for (ordinal_t x0 = 0; x0 < grid[0]; x0 += box[0]) {
        const ordinal_t z1 = std::min(z0 + box[2], grid[2]), y1 = std::min(y0 + box[1], grid[1]);
        const ordinal_t x1 = std::min(x0 + box[0], grid[0]);
        for (ordinal_t k = z0; k < z1; ++k)
          for (ordinal_t j = y0; j < y1; ++j) {
            const ordinal_t row = grid[0] * (j + grid[1] * k);
            for (ordinal_t i = x0; i < x1; ++i) layout.new_to_old.push_back(row + i);
          }
        layout.sub_start.push_back(ordinal_t(layout.new_to_old.size()));
      }
  return layout;
}

}  // namespace trellis
