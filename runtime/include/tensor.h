// pypto CPU runtime: tensor descriptors shared by kernels, orchestration and the executor —
// DataType (order and values as in simpler's data_type.h), PTO2TaskId, ChipTensor (the 128-byte
// GM view descriptor kernels receive), and the 64-bit scalar packing helpers to_u64 / from_u64.
//
// ChipTensor field layout follows simpler's (byte offsets checked below): buffer.addr is a byte
// address, start_offset and strides are in ELEMENTS, shapes[] the view extent per dimension.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#ifndef __gm__
#define __gm__
#endif

constexpr int MAX_TENSOR_DIMS = 5;

enum class AddressSpace : uint8_t { HOST = 0, DEVICE = 1 };

enum class DataType : uint8_t {
    FLOAT32,
    FLOAT16,
    INT32,
    INT16,
    INT8,
    UINT8,
    BFLOAT16,
    INT64,
    UINT64,
    UINT16,
    UINT32,
    BOOL,
    FP8E4M3FN,
    FP8E8M0,
    FP4E2M1,
    DATA_TYPE_NUM,
};

inline uint64_t get_element_size(DataType dtype) {
    switch (dtype) {
        case DataType::FLOAT32:
        case DataType::INT32:
        case DataType::UINT32: return 4;
        case DataType::FLOAT16:
        case DataType::INT16:
        case DataType::UINT16:
        case DataType::BFLOAT16: return 2;
        case DataType::INT64:
        case DataType::UINT64: return 8;
        case DataType::INT8:
        case DataType::UINT8:
        case DataType::BOOL:
        case DataType::FP8E4M3FN:
        case DataType::FP8E8M0:
        case DataType::FP4E2M1: return 1;
        case DataType::DATA_TYPE_NUM: break;
    }
    return 0;
}

inline const char* get_dtype_name(DataType dtype) {
    switch (dtype) {
        case DataType::FLOAT32: return "FLOAT32";
        case DataType::FLOAT16: return "FLOAT16";
        case DataType::INT32: return "INT32";
        case DataType::INT16: return "INT16";
        case DataType::INT8: return "INT8";
        case DataType::UINT8: return "UINT8";
        case DataType::BFLOAT16: return "BFLOAT16";
        case DataType::INT64: return "INT64";
        case DataType::UINT64: return "UINT64";
        case DataType::UINT16: return "UINT16";
        case DataType::UINT32: return "UINT32";
        case DataType::BOOL: return "BOOL";
        case DataType::FP8E4M3FN: return "FP8E4M3FN";
        case DataType::FP8E8M0: return "FP8E8M0";
        case DataType::FP4E2M1: return "FP4E2M1";
        case DataType::DATA_TYPE_NUM: break;
    }
    return "UNKNOWN";
}

// Pack a scalar into a 64-bit slot: its bytes in the low bytes, the rest zero.
template <typename T>
inline uint64_t to_u64(T value) {
    static_assert(sizeof(T) <= sizeof(uint64_t), "to_u64: type must fit in 8 bytes");
    static_assert(std::is_trivially_copyable_v<T>, "to_u64: type must be trivially copyable");
    uint64_t u = 0;
    std::memcpy(&u, &value, sizeof(T));
    return u;
}

// Unpack a scalar from the low bytes of a 64-bit slot.
template <typename T>
inline T from_u64(uint64_t bits) {
    static_assert(sizeof(T) <= sizeof(uint64_t), "from_u64: type must fit in 8 bytes");
    static_assert(std::is_trivially_copyable_v<T>, "from_u64: type must be trivially copyable");
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}

// Task id: (ring << 32) | local; all-ones is the invalid sentinel.
struct PTO2TaskId {
    uint64_t raw;
    static constexpr PTO2TaskId make(uint8_t ring_id, uint32_t local_id) {
        return PTO2TaskId{(static_cast<uint64_t>(ring_id) << 32) | local_id};
    }
    static constexpr PTO2TaskId invalid() { return PTO2TaskId{UINT64_MAX}; }
    constexpr uint8_t ring() const { return static_cast<uint8_t>(raw >> 32); }
    constexpr uint32_t local() const { return static_cast<uint32_t>(raw & 0xFFFFFFFFu); }
    constexpr bool is_valid() const { return raw != UINT64_MAX; }
    constexpr bool is_invalid() const { return raw == UINT64_MAX; }
    constexpr bool operator==(const PTO2TaskId& o) const { return raw == o.raw; }
    constexpr bool operator!=(const PTO2TaskId& o) const { return raw != o.raw; }
};

struct PTOBufferHandle {
    uint64_t addr;  // byte address of the allocation
    uint64_t size;  // bytes
};

enum class TensorArgType : int32_t { INPUT = 0, OUTPUT = 1, INOUT = 2, OUTPUT_EXISTING = 3, NO_DEP = 4 };

struct alignas(64) ChipTensor {
    PTOBufferHandle buffer;
    PTO2TaskId owner_task_id;
    uint64_t start_offset;  // elements from buffer.addr to the view origin
    int32_t version;
    uint32_t ndims;
    DataType dtype;
    bool manual_dep;
    bool is_contiguous;
    AddressSpace address_space;
    uint32_t shapes[MAX_TENSOR_DIMS];
    uint64_t extent_elem_cache;         // 1 + sum (shapes[i]-1) * strides[i]
    uint32_t strides[MAX_TENSOR_DIMS];  // elements, > 0
    uint8_t _pad_cl2[36];

    uint64_t numel() const {
        uint64_t n = 1;
        for (uint32_t i = 0; i < ndims; ++i) n *= shapes[i];
        return n;
    }
    uint64_t extent_elem() const { return extent_elem_cache; }
    uint64_t nbytes() const { return numel() * get_element_size(dtype); }
    template <typename T>
    T* data_as() const {
        return reinterpret_cast<T*>(static_cast<uintptr_t>(buffer.addr));
    }
    uint64_t compute_flat_offset(const uint32_t indices[], uint32_t n) const {
        uint64_t off = start_offset;
        for (uint32_t d = 0; d < n; ++d) off += static_cast<uint64_t>(indices[d]) * strides[d];
        return off;
    }

    // Contiguous row-major view of a whole buffer.
    void init_external(void* addr, uint64_t size_bytes, const uint32_t in_shapes[], uint32_t in_ndims, DataType dt) {
        std::memset(static_cast<void*>(this), 0, sizeof(ChipTensor));
        buffer = {reinterpret_cast<uint64_t>(addr), size_bytes};
        owner_task_id = PTO2TaskId::invalid();
        ndims = in_ndims;
        dtype = dt;
        for (uint32_t i = 0; i < in_ndims; ++i) shapes[i] = in_shapes[i];
        set_row_major_strides();
    }

    // Sub-view: start_offset += sum offsets[i]*strides[i], shapes := view_shapes, strides kept.
    ChipTensor view(const uint32_t view_shapes[], const uint32_t view_offsets[], bool in_manual_dep = false) const {
        ChipTensor r = *this;
        bool empty = false;
        for (uint32_t i = 0; i < ndims; ++i) empty = empty || view_shapes[i] == 0;
        for (uint32_t i = 0; i < ndims; ++i) {
            if (!empty) r.start_offset += static_cast<uint64_t>(view_offsets[i]) * strides[i];
            r.shapes[i] = view_shapes[i];
        }
        r.manual_dep = in_manual_dep;
        r.refresh_derived();
        if (empty) r.extent_elem_cache = 0;
        return r;
    }
    ChipTensor transpose(uint32_t x, uint32_t y, bool in_manual_dep = false) const {
        ChipTensor r = *this;
        uint32_t t = r.shapes[x];
        r.shapes[x] = r.shapes[y];
        r.shapes[y] = t;
        t = r.strides[x];
        r.strides[x] = r.strides[y];
        r.strides[y] = t;
        r.manual_dep = in_manual_dep;
        r.refresh_derived();
        return r;
    }
    // Reshape of a contiguous view (row-major strides for the new shape).
    ChipTensor reshape(const uint32_t new_shapes[], uint32_t new_ndims, bool in_manual_dep = false) const {
        ChipTensor r = *this;
        r.ndims = new_ndims;
        for (uint32_t i = 0; i < new_ndims; ++i) r.shapes[i] = new_shapes[i];
        r.manual_dep = in_manual_dep;
        r.set_row_major_strides();
        return r;
    }

    void set_row_major_strides() {
        uint64_t s = 1;
        for (int i = static_cast<int>(ndims) - 1; i >= 0; --i) {
            strides[i] = static_cast<uint32_t>(s);
            s *= shapes[i];
        }
        extent_elem_cache = s;
        is_contiguous = true;
    }
    void refresh_derived() {
        uint64_t e = 1, expected = 1;
        bool contig = true;
        for (int i = static_cast<int>(ndims) - 1; i >= 0; --i) {
            if (strides[i] != expected) contig = false;
            if (shapes[i] > 0) e += static_cast<uint64_t>(shapes[i] - 1) * strides[i];
            expected *= shapes[i];
        }
        extent_elem_cache = e;
        is_contiguous = contig;
    }
};

static_assert(sizeof(ChipTensor) == 128, "ChipTensor must be 128 bytes");
static_assert(std::is_trivially_copyable_v<ChipTensor>, "ChipTensor must be trivially copyable");
static_assert(offsetof(ChipTensor, owner_task_id) == 16);
static_assert(offsetof(ChipTensor, start_offset) == 24);
static_assert(offsetof(ChipTensor, ndims) == 36);
static_assert(offsetof(ChipTensor, dtype) == 40);
static_assert(offsetof(ChipTensor, shapes) == 44);
static_assert(offsetof(ChipTensor, strides) == 72);

// A contiguous ChipTensor over caller-owned memory.
inline ChipTensor make_tensor_external(void* addr, const uint32_t shapes[], uint32_t ndims,
                                       DataType dtype = DataType::FLOAT32) {
    ChipTensor t;
    uint64_t n = 1;
    for (uint32_t i = 0; i < ndims; ++i) n *= shapes[i];
    t.init_external(addr, n * get_element_size(dtype), shapes, ndims, dtype);
    return t;
}
