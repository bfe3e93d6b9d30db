// pypto CPU runtime: the memory region a task argument touches (a ChipTensor view) and the
// overlap test the executor's dependency tracking uses.
//
// Two regions of the same buffer overlap when their byte ranges intersect AND — if both views
// have the same element size, rank and strides and those strides form a mixed-radix system over
// the union of both views — their per-dimension boxes intersect (start_offset is decomposed into
// coordinates along the strides). Any other case with intersecting byte ranges is treated as
// overlapping (conservative).
#pragma once

#include <cstdint>

#include "tensor.h"

namespace pypto_rt {

struct Region {
    uint64_t buffer = 0;     // ChipTensor buffer.addr (the dependency-map key)
    uint32_t elem_size = 1;  // bytes
    uint64_t start = 0;      // elements
    uint32_t ndims = 0;
    uint32_t shapes[MAX_TENSOR_DIMS] = {};
    uint32_t strides[MAX_TENSOR_DIMS] = {};

    static Region of(const ChipTensor& t);
    bool empty() const;
    uint64_t extent() const;     // elements from start to one past the last reachable element
    bool same_as(const Region& o) const;
};

bool regions_overlap(const Region& a, const Region& b);

}  // namespace pypto_rt
