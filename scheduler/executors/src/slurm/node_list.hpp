#pragma once
// Slurm node lists ("gpu[01-03,07],login1") as the node names they stand for. The executor compares node
// lists of failed tasks with a partition's size; a multi-node task's list ("n[1-2]") names several nodes.
#include <string>
#include <vector>

namespace kforge::scheduler::slurm_detail {

// Expands one bracket group per name, keeping zero padding ("n[08-10]" -> n08 n09 n10) and any suffix.
// A name it cannot read (nested or unbalanced brackets, a reversed range) is returned as it is.
std::vector<std::string> expand_node_list(const std::string& list);

}  // namespace kforge::scheduler::slurm_detail
