// pypto CPU runtime: minimal NumPy .npy reader / writer (format versions 1.0, 2.0 and 3.0 on
// read, 1.0 on write; C order only — fortran_order arrays are rejected; little-endian or
// byte-order-free descrs only). Errors throw NpyError with a message naming the file.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor.h"

namespace pypto_rt {

struct NpyError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct NpyArray {
    std::string descr;           // normalised: "<f4", "<f2", "<i4", "|b1", "|u1", ...
    std::vector<int64_t> shape;  // () for a scalar
    std::vector<uint8_t> data;   // raw little-endian elements, C order
    uint64_t numel() const;
};

NpyArray read_npy(const std::string& path);
void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const void* data, uint64_t bytes);

// Bytes per element of a descr ("<f4" -> 4); 0 if malformed.
uint64_t npy_item_size(const std::string& descr);

// The .npy descr a tensor of `dtype` travels as (BFLOAT16, FP8E4M3FN and FP8E8M0 travel as "<f4");
// "" if unsupported.
std::string npy_descr_for(DataType dtype);

}  // namespace pypto_rt
