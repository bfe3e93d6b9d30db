// pypto CPU runtime: .npy reading and writing (see pypto_rt/npy.h).
#include "pypto_rt/npy.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <sstream>

namespace pypto_rt {

uint64_t NpyArray::numel() const {
    uint64_t n = 1;
    for (int64_t d : shape) n *= static_cast<uint64_t>(d);
    return n;
}

uint64_t npy_item_size(const std::string& descr) {
    if (descr.size() < 3) return 0;
    uint64_t n = 0;
    for (std::size_t i = 2; i < descr.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(descr[i]))) return 0;
        n = n * 10 + static_cast<uint64_t>(descr[i] - '0');
    }
    return n;
}

std::string npy_descr_for(DataType dtype) {
    switch (dtype) {
        case DataType::FLOAT32:
        case DataType::BFLOAT16:
        case DataType::FP8E4M3FN:
        case DataType::FP8E8M0: return "<f4";  // converted on the way in and out (runtime/src/main.cpp)
        case DataType::FLOAT16: return "<f2";
        case DataType::INT8: return "|i1";
        case DataType::INT16: return "<i2";
        case DataType::INT32: return "<i4";
        case DataType::INT64: return "<i8";
        case DataType::UINT8: return "|u1";
        case DataType::UINT16: return "<u2";
        case DataType::UINT32: return "<u4";
        case DataType::UINT64: return "<u8";
        case DataType::BOOL: return "|b1";
        default: return "";
    }
}

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& why) {
    throw NpyError(path + ": " + why);
}

// Value text following 'key': in a python dict literal.
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
    const std::string k1 = "'" + key + "'";
    std::size_t p = header.find(k1);
    if (p == std::string::npos) bad(path, "corrupt .npy header: no '" + key + "' entry");
    p = header.find(':', p + k1.size());
    if (p == std::string::npos) bad(path, "corrupt .npy header near '" + key + "'");
    ++p;
    while (p < header.size() && header[p] == ' ') ++p;
    if (p >= header.size()) bad(path, "corrupt .npy header near '" + key + "'");
    if (header[p] == '\'') {
        const std::size_t e = header.find('\'', p + 1);
        if (e == std::string::npos) bad(path, "corrupt .npy header: unterminated string");
        return header.substr(p + 1, e - p - 1);
    }
    if (header[p] == '(') {
        const std::size_t e = header.find(')', p);
        if (e == std::string::npos) bad(path, "corrupt .npy header: unterminated shape");
        return header.substr(p + 1, e - p - 1);
    }
    std::size_t e = p;
    while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
    std::string v = header.substr(p, e - p);
    while (!v.empty() && v.back() == ' ') v.pop_back();
    return v;
}

std::string normalise_descr(std::string d, const std::string& path) {
    if (d.size() < 3) bad(path, "unsupported dtype descr '" + d + "'");
    if (d[0] == '>') {
        if (npy_item_size(d) != 1) bad(path, "big-endian data ('" + d + "') is not supported");
        d[0] = '|';
    }
    if (d[0] == '=') d[0] = '<';
    if (npy_item_size(d) == 1) d[0] = '|';
    if (d[0] != '<' && d[0] != '|') bad(path, "unsupported dtype descr '" + d + "'");
    if (npy_item_size(d) == 0) bad(path, "unsupported dtype descr '" + d + "'");
    return d;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
    // The header is read first (a few hundred bytes), then the data in one read straight into
    // the array (no second copy).
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) bad(path, "cannot open file");
    const auto file_size = static_cast<uint64_t>(in.tellg());
    in.seekg(0);
    uint8_t pre[12] = {};
    in.read(reinterpret_cast<char*>(pre), static_cast<std::streamsize>(std::min<uint64_t>(file_size, 12)));
    if (file_size < 10 || std::memcmp(pre, "\x93NUMPY", 6) != 0) bad(path, "not a .npy file (bad magic)");
    const uint8_t major = pre[6];
    std::size_t header_len = 0, pos = 0;
    if (major == 1) {
        header_len = static_cast<std::size_t>(pre[8]) | (static_cast<std::size_t>(pre[9]) << 8);
        pos = 10;
    } else if (major == 2 || major == 3) {
        if (file_size < 12) bad(path, "truncated .npy header");
        header_len = static_cast<std::size_t>(pre[8]) | (static_cast<std::size_t>(pre[9]) << 8) |
                     (static_cast<std::size_t>(pre[10]) << 16) | (static_cast<std::size_t>(pre[11]) << 24);
        pos = 12;
    } else {
        bad(path, "unsupported .npy format version " + std::to_string(major));
    }
    if (pos + header_len > file_size) bad(path, "truncated .npy header");
    std::string header(header_len, '\0');
    in.seekg(static_cast<std::streamoff>(pos));
    in.read(header.data(), static_cast<std::streamsize>(header_len));
    if (!in) bad(path, "truncated .npy header");
    if (header.find('{') == std::string::npos || header.find('}') == std::string::npos)
        bad(path, "corrupt .npy header");

    NpyArray arr;
    arr.descr = normalise_descr(dict_value(header, "descr", path), path);
    const std::string fortran = dict_value(header, "fortran_order", path);
    if (fortran == "True")
        bad(path, "fortran_order arrays are not supported; save a C-ordered array (numpy.ascontiguousarray)");
    if (fortran != "False") bad(path, "corrupt .npy header: fortran_order is '" + fortran + "'");
    std::stringstream shape_text(dict_value(header, "shape", path));
    std::string item;
    while (std::getline(shape_text, item, ',')) {
        std::size_t a = item.find_first_not_of(' '), b = item.find_last_not_of(' ');
        if (a == std::string::npos) continue;
        item = item.substr(a, b - a + 1);
        if (!item.empty() && item.back() == 'L') item.pop_back();
        for (char ch : item)
            if (!std::isdigit(static_cast<unsigned char>(ch))) bad(path, "corrupt .npy header: bad shape entry '" + item + "'");
        arr.shape.push_back(std::stoll(item));
    }
    const uint64_t need = arr.numel() * npy_item_size(arr.descr);
    const uint64_t data_bytes = file_size - (pos + header_len);
    if (data_bytes < need)
        bad(path, "truncated data: expected " + std::to_string(need) + " bytes, found " + std::to_string(data_bytes));
    if (data_bytes > need) bad(path, "trailing bytes after the array data");
    arr.data.resize(need);
    in.read(reinterpret_cast<char*>(arr.data.data()), static_cast<std::streamsize>(need));
    if (!in && need > 0) bad(path, "read failed");
    return arr;
}

void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const void* data, uint64_t bytes) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        dict += std::to_string(shape[i]);
        if (shape.size() == 1 || i + 1 < shape.size()) dict += ",";
        if (i + 1 < shape.size()) dict += " ";
    }
    dict += "), }";
    std::size_t total = 10 + dict.size() + 1;
    const std::size_t pad = (64 - total % 64) % 64;
    dict.append(pad, ' ');
    dict += '\n';
    std::ofstream out(path, std::ios::binary);
    if (!out) throw NpyError(path + ": cannot create file");
    const uint16_t len = static_cast<uint16_t>(dict.size());
    const char preamble[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
    out.write(preamble, 8);
    const char lenb[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
    out.write(lenb, 2);
    out.write(dict.data(), static_cast<std::streamsize>(dict.size()));
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out) throw NpyError(path + ": write failed");
}

}  // namespace pypto_rt
