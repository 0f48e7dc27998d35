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
      throw InputError("partition: row " + std::to_string(i) + " has part " + std::to_string(p) +
                       ", outside [0, " + std::to_string(partition.num_parts) + ")");
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

}  // namespace trellis
