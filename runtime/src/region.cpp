// pypto CPU runtime: Region construction and the overlap test (see pypto_rt/region.h).
#include "pypto_rt/region.h"

#include <algorithm>

namespace pypto_rt {

Region Region::of(const ChipTensor& t) {
    Region r;
    r.buffer = t.buffer.addr;
    r.elem_size = static_cast<uint32_t>(get_element_size(t.dtype));
    if (r.elem_size == 0) r.elem_size = 1;
    r.start = t.start_offset;
    r.ndims = t.ndims;
    for (uint32_t i = 0; i < t.ndims && i < static_cast<uint32_t>(MAX_TENSOR_DIMS); ++i) {
        r.shapes[i] = t.shapes[i];
        r.strides[i] = t.strides[i];
    }
    return r;
}

bool Region::empty() const {
    for (uint32_t i = 0; i < ndims; ++i)
        if (shapes[i] == 0) return true;
    return false;
}

uint64_t Region::extent() const {
    if (empty()) return 0;
    uint64_t e = 1;
    for (uint32_t i = 0; i < ndims; ++i) e += static_cast<uint64_t>(shapes[i] - 1) * strides[i];
    return e;
}

bool Region::same_as(const Region& o) const {
    if (buffer != o.buffer || elem_size != o.elem_size || start != o.start || ndims != o.ndims) return false;
    for (uint32_t i = 0; i < ndims; ++i)
        if (shapes[i] != o.shapes[i] || strides[i] != o.strides[i]) return false;
    return true;
}

bool regions_overlap(const Region& a, const Region& b) {
    if (a.buffer != b.buffer || a.empty() || b.empty()) return false;
    const uint64_t a0 = a.start * a.elem_size, a1 = (a.start + a.extent()) * a.elem_size;
    const uint64_t b0 = b.start * b.elem_size, b1 = (b.start + b.extent()) * b.elem_size;
    if (a1 <= b0 || b1 <= a0) return false;
    if (a.elem_size != b.elem_size || a.ndims != b.ndims) return true;
    for (uint32_t i = 0; i < a.ndims; ++i)
        if (a.strides[i] != b.strides[i] || a.strides[i] == 0) return true;

    // Dimensions ordered by decreasing stride; decompose both starts along them.
    const uint32_t n = a.ndims;
    uint32_t order[MAX_TENSOR_DIMS];
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order, order + n, [&](uint32_t x, uint32_t y) { return a.strides[x] > a.strides[y]; });
    uint64_t ca[MAX_TENSOR_DIMS], cb[MAX_TENSOR_DIMS];
    uint64_t ra = a.start, rb = b.start;
    for (uint32_t k = 0; k < n; ++k) {
        const uint32_t d = order[k];
        ca[d] = ra / a.strides[d];
        ra %= a.strides[d];
        cb[d] = rb / b.strides[d];
        rb %= b.strides[d];
    }
    if (ra != rb) return true;  // interleaved at a sub-stride offset: be conservative
    // Mixed-radix check over the union: each stride must exceed the span of all finer dims.
    uint64_t finer_span = ra;
    for (int k = static_cast<int>(n) - 1; k >= 0; --k) {
        const uint32_t d = order[k];
        if (a.strides[d] <= finer_span) return true;
        const uint64_t hi = std::max(ca[d] + a.shapes[d], cb[d] + b.shapes[d]);
        finer_span += (hi - 1) * a.strides[d];
    }
    for (uint32_t d = 0; d < n; ++d) {
        const uint64_t lo = std::max(ca[d], cb[d]);
        const uint64_t hi = std::min(ca[d] + a.shapes[d], cb[d] + b.shapes[d]);
        if (lo >= hi) return false;
    }
    return true;
}

}  // namespace pypto_rt
