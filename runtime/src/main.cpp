// pypto CPU runtime: `run`, the main of a generated project. Linked with the generated
// program_table.cpp (kProgram), the kernels and the orchestration; reads the entry's input
// tensors from .npy files (or generates them with --seed), runs the orchestration on the CPU
// executor, writes the outputs as .npy and prints a one-line summary. A kernel error (an
// out-of-extent GM access, a bad TASSIGN, ...) stops the run with a message naming the task, the
// kernel and the source line (the program table's line maps); --check-races / --check-syncs print
// what they found and make the run fail. A dynamic dim takes its extent from the scalar
// parameter of its name, from any tensor given with it (an input file, --shape), or from --shape
// for the tensor itself; generated inputs and Out tensors are sized with it. --trace FILE writes
// the executed task graph as a Chrome trace (runtime/src/trace.cpp), also for a run that failed.
// On a terminal, a run longer than a second shows its progress on stderr (tasks done / submitted,
// elapsed time; PYPTO_PROGRESS_DELAY_MS changes the second, for tests); --quiet silences it.
#include <chrono>
#include <thread>
#include <mutex>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <pto/pto_float.hpp>
#include <pto/pto_sim_context.hpp>

#include "pto_orchestration_api.h"
#include "pypto_rt/executor.h"
#include "pypto_rt/extents.h"
#include "pypto_rt/npy.h"
#include "pypto_rt/program.h"
#include "pypto_rt/random_fill.h"

using namespace pypto_rt;
namespace fs = std::filesystem;

namespace {

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "run: error: %s\n", msg.c_str());
    std::exit(1);
}

void usage(const ProgramInfo& p) {
    std::printf(
        "usage: run [--inputs DIR] [--outputs DIR] [--seed N] [--scalar NAME=VALUE]...\n"
        "           [--shape NAME=[D0,D1,...]]... [--clusters C] [--jobs N] [--check-races]\n"
        "           [--check-syncs] [--trace FILE.json] [--quiet]\n"
        "Runs '%s' on the pypto CPU runtime.\n"
        "  --inputs DIR     read <param>.npy for every In/InOut tensor parameter\n"
        "  --seed N         generate missing inputs deterministically (floats in [-1,1), ints in [-8,8],\n"
        "                   float8_e8m0 scales in 2^-2 .. 2^2)\n"
        "  --outputs DIR    write every Out/InOut tensor (and generated inputs) as <param>.npy\n"
        "  --scalar N=V     value of scalar parameter N (required for every scalar)\n"
        "  --shape T=[D,..] shape of tensor T, for a dynamic dim no scalar or input file gives\n"
        "                   (a generated input or an Out tensor)\n"
        "  --clusters C     simulated clusters of 1 AIC + 2 AIV cores (default 2)\n"
        "  --jobs N         run at most N kernels at a time (default: this machine's hardware threads,\n"
        "                   at least 2; the kernels of a mixed task always start together)\n"
        "  --check-races    report pairs of tasks touching overlapping GM bytes (one writing) that the\n"
        "                   reference runtime's ordering rules leave unordered\n"
        "  --check-syncs    model the pipes as asynchronous and report kernel instructions that a\n"
        "                   missing set_flag / wait_flag (or pipe_barrier) leaves unordered\n"
        "  --trace FILE     write the executed task graph as a Chrome trace (open it in Perfetto or\n"
        "                   chrome://tracing): a track per simulated core, a slice per kernel run with\n"
        "                   its task, submit line and arguments, an arrow per dependency (RAW/WAR/WAW,\n"
        "                   creator, deps); FILE.svg: a picture of the same run\n"
        "  --quiet          no progress line (shown on a terminal for runs longer than a second)\n"
        "Every GM access of a kernel is checked against the tensors it was given.\n"
        "float16 travels as <f2; bfloat16 and float8_e4m3fn as <f4 (rounded to nearest even on input;\n"
        "float8_e4m3fn: beyond +-448 becomes NaN); float8_e8m0 as <f4 (on input the power of two\n"
        "2^floor(log2 x); x <= 0, inf, NaN become NaN).\n",
        p.name);
    std::printf("tensor parameters:");
    for (int i = 0; i < p.num_tensors; ++i) {
        const TensorParamInfo& t = p.tensors[i];
        std::printf(" %s[", t.name);
        for (int d = 0; d < t.ndims; ++d) {
            if (d) std::printf(",");
            if (t.shape[d] >= 0) std::printf("%lld", static_cast<long long>(t.shape[d]));
            else std::printf("%s", t.dim_names[d] ? t.dim_names[d] : "?");
        }
        std::printf("]");
    }
    std::printf("\nscalar parameters:");
    for (int i = 0; i < p.num_scalars; ++i) std::printf(" %s", p.scalars[i].name);
    std::printf("\n");
}

std::string shape_str(const std::vector<int64_t>& s) {
    std::string r = "[";
    for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + "]";
}

uint64_t parse_scalar(const ScalarParamInfo& sp, const std::string& text) {
    try {
        std::size_t used = 0;
        uint64_t bits = 0;
        switch (sp.dtype) {
            case DataType::FLOAT32: bits = to_u64(std::stof(text, &used)); break;
            case DataType::FLOAT16: bits = to_u64(half(std::stof(text, &used)).bits); break;
            case DataType::BFLOAT16: bits = to_u64(bfloat16_t(std::stof(text, &used)).bits); break;
            case DataType::FP8E4M3FN: bits = to_u64(float8_e4m3_t(std::stof(text, &used)).bits); break;
            case DataType::FP8E8M0: bits = to_u64(float8_e8m0_t(std::stof(text, &used)).bits); break;
            case DataType::BOOL:
                if (text == "true" || text == "True" || text == "1") bits = 1, used = text.size();
                else if (text == "false" || text == "False" || text == "0") bits = 0, used = text.size();
                break;
            case DataType::INT8: bits = to_u64(static_cast<int8_t>(std::stoll(text, &used))); break;
            case DataType::INT16: bits = to_u64(static_cast<int16_t>(std::stoll(text, &used))); break;
            case DataType::INT32: bits = to_u64(static_cast<int32_t>(std::stoll(text, &used))); break;
            case DataType::INT64: bits = to_u64(static_cast<int64_t>(std::stoll(text, &used))); break;
            case DataType::UINT8: bits = to_u64(static_cast<uint8_t>(std::stoull(text, &used))); break;
            case DataType::UINT16: bits = to_u64(static_cast<uint16_t>(std::stoull(text, &used))); break;
            case DataType::UINT32: bits = to_u64(static_cast<uint32_t>(std::stoull(text, &used))); break;
            case DataType::UINT64: bits = std::stoull(text, &used); break;
            default: die(std::string("scalar '") + sp.name + "' has unsupported dtype " + get_dtype_name(sp.dtype));
        }
        if (used != text.size()) throw std::invalid_argument("trailing text");
        return bits;
    } catch (const std::exception&) {
        die(std::string("cannot parse '") + text + "' as " + get_dtype_name(sp.dtype) + " for scalar '" + sp.name + "'");
    }
}

// The extents of the entry's dynamic dims, by symbol name, each with where it came from.
class DimSymbols {
public:
    void bind(const std::string& name, int64_t value, const std::string& from) {
        auto it = values_.find(name);
        if (it == values_.end()) {
            values_[name] = {value, from};
        } else if (it->second.first != value) {
            die("dynamic dim " + name + " is " + std::to_string(value) + " by " + from + ", but " +
                std::to_string(it->second.first) + " by " + it->second.second);
        }
    }
    const std::pair<int64_t, std::string>* find(const std::string& name) const {
        auto it = values_.find(name);
        return it == values_.end() ? nullptr : &it->second;
    }

private:
    std::map<std::string, std::pair<int64_t, std::string>> values_;
};

std::string declared_shape(const TensorParamInfo& tp) {
    std::string r = "[";
    for (int d = 0; d < tp.ndims; ++d) {
        if (d) r += ", ";
        r += tp.shape[d] >= 0 ? std::to_string(tp.shape[d]) : tp.dim_names[d] ? tp.dim_names[d] : "?";
    }
    return r + "]";
}

// Checks `shape` (from `from`) against tp's declared shape and binds its named dynamic dims.
void match_shape(const TensorParamInfo& tp, const std::vector<int64_t>& shape, const std::string& from,
                 DimSymbols& syms) {
    bool ok = static_cast<int>(shape.size()) == tp.ndims;
    for (int d = 0; ok && d < tp.ndims; ++d) ok = tp.shape[d] < 0 || tp.shape[d] == shape[d];
    if (!ok)
        die(from + ": shape " + shape_str(shape) + " does not match parameter '" + tp.name + "' " + declared_shape(tp));
    for (int d = 0; d < tp.ndims; ++d)
        if (tp.shape[d] < 0 && tp.dim_names[d]) syms.bind(tp.dim_names[d], shape[d], from);
}

struct HostTensor {
    std::vector<int64_t> shape;
    std::vector<uint8_t> data;  // device layout
    bool given = false;  // read from an input file
    bool generated = false;
    std::vector<uint8_t> initial;  // generated InOut input, written as <param>.input.npy
};

// Convert an .npy payload into device layout (BF16: float32 -> bf16 RNE; FP8E4M3FN: float32 ->
// E4M3 RNE; FP8E8M0: float32 -> its exponent; pto_float.hpp).
std::vector<uint8_t> from_npy(NpyArray&& a, DataType dt) {
    const uint64_t n = a.numel();
    auto f32 = [&a](uint64_t i) {
        float f;
        std::memcpy(&f, a.data.data() + i * 4, 4);
        return f;
    };
    if (dt == DataType::BFLOAT16) {
        std::vector<uint8_t> out(n * 2);
        for (uint64_t i = 0; i < n; ++i) {
            const uint16_t b = bfloat16_t(f32(i)).bits;
            std::memcpy(out.data() + i * 2, &b, 2);
        }
        return out;
    }
    if (dt == DataType::FP8E4M3FN || dt == DataType::FP8E8M0) {
        std::vector<uint8_t> out(n);
        for (uint64_t i = 0; i < n; ++i)
            out[i] = dt == DataType::FP8E4M3FN ? float8_e4m3_t(f32(i)).bits : float8_e8m0_t(f32(i)).bits;
        return out;
    }
    return std::move(a.data);  // no copy of the file's bytes
}

void write_tensor(const fs::path& dir, const std::string& name, const TensorParamInfo& tp,
                  const std::vector<uint8_t>& data, const std::vector<int64_t>& shape) {
    const std::string path = (dir / (name + ".npy")).string();
    if (tp.dtype == DataType::BFLOAT16) {
        const uint64_t n = data.size() / 2;
        std::vector<float> f(n);
        for (uint64_t i = 0; i < n; ++i) {
            uint16_t b;
            std::memcpy(&b, data.data() + i * 2, 2);
            f[i] = bfloat16_t::from_bits(b);
        }
        write_npy(path, "<f4", shape, f.data(), n * 4);
    } else if (tp.dtype == DataType::FP8E4M3FN || tp.dtype == DataType::FP8E8M0) {
        const uint64_t n = data.size();
        std::vector<float> f(n);
        for (uint64_t i = 0; i < n; ++i)
            f[i] = tp.dtype == DataType::FP8E4M3FN ? float(float8_e4m3_t::from_bits(data[i]))
                                                   : float(float8_e8m0_t::from_bits(data[i]));
        write_npy(path, "<f4", shape, f.data(), n * 4);
    } else {
        write_npy(path, npy_descr_for(tp.dtype), shape, data.data(), data.size());
    }
}

// The progress line of a run on a terminal: after a second (PYPTO_PROGRESS_DELAY_MS), every
// 200 ms "run: N / M tasks done, T s" on stderr, cleared when the run ends.
class Progress {
public:
    Progress(const Executor& ex, bool enabled) {
        if (!enabled) return;
        int delay_ms = 1000;
        if (const char* d = std::getenv("PYPTO_PROGRESS_DELAY_MS"); d && *d) delay_ms = std::atoi(d);
        thread_ = std::thread([this, &ex, delay_ms] {
            const auto t0 = std::chrono::steady_clock::now();
            bool shown = false;
            std::unique_lock<std::mutex> lk(mu_);
            if (!cv_.wait_for(lk, std::chrono::milliseconds(delay_ms), [this] { return done_; })) {
                do {
                    const auto [finished, submitted] = ex.progress();
                    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                    std::fprintf(stderr, "\rrun: %llu / %llu tasks done, %.1f s", static_cast<unsigned long long>(finished),
                                 static_cast<unsigned long long>(submitted), s);
                    std::fflush(stderr);
                    shown = true;
                } while (!cv_.wait_for(lk, std::chrono::milliseconds(200), [this] { return done_; }));
            }
            if (shown) std::fprintf(stderr, "\r\033[K");  // clear the line
        });
    }
    void stop() {
        if (!thread_.joinable()) return;
        {
            std::lock_guard<std::mutex> lk(mu_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    ~Progress() { stop(); }

private:
    std::thread thread_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
};

}  // namespace

int main(int argc, char** argv) {
    const ProgramInfo& prog = kProgram;
    std::string inputs_dir, outputs_dir;
    bool have_seed = false;
    uint64_t seed = 0;
    int clusters = 2;
    int jobs = 0;  // 0: the executor's default (the machine's hardware threads, at least 2)
    bool check_races = false, check_syncs = false;
    std::string trace_path;
    bool quiet = false;
    std::map<std::string, std::string> scalar_text;
    std::map<std::string, std::vector<int64_t>> shape_arg;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char* flag) -> std::string {
            if (i + 1 >= argc) die(std::string(flag) + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            usage(prog);
            return 0;
        } else if (a == "--inputs") {
            inputs_dir = value("--inputs");
        } else if (a == "--outputs") {
            outputs_dir = value("--outputs");
        } else if (a == "--seed") {
            const std::string v = value("--seed");
            try {
                seed = std::stoull(v);
            } catch (const std::exception&) {
                die("--seed needs a non-negative integer, got '" + v + "'");
            }
            have_seed = true;
        } else if (a == "--clusters") {
            const std::string v = value("--clusters");
            try {
                clusters = std::stoi(v);
            } catch (const std::exception&) {
                clusters = 0;
            }
            if (clusters < 1 || clusters > 64) die("--clusters needs an integer in [1, 64], got '" + v + "'");
        } else if (a == "--jobs") {
            const std::string v = value("--jobs");
            try {
                jobs = std::stoi(v);
            } catch (const std::exception&) {
                jobs = 0;
            }
            if (jobs < 1 || jobs > 1024) die("--jobs needs an integer in [1, 1024], got '" + v + "'");
        } else if (a == "--quiet") {
            quiet = true;
        } else if (a == "--trace") {
            trace_path = value("--trace");
            if (trace_path.empty()) die("--trace needs a file name");
        } else if (a == "--check-races") {
            check_races = true;
        } else if (a == "--check-syncs") {
            check_syncs = true;
        } else if (a == "--scalar") {
            const std::string v = value("--scalar");
            const std::size_t eq = v.find('=');
            if (eq == std::string::npos || eq == 0) die("--scalar expects NAME=VALUE, got '" + v + "'");
            scalar_text[v.substr(0, eq)] = v.substr(eq + 1);
        } else if (a == "--shape") {
            const std::string v = value("--shape");
            const std::size_t eq = v.find('=');
            std::vector<int64_t> ext;
            if (eq == std::string::npos || eq == 0 || !parse_extents(v.substr(eq + 1), ext))
                die("--shape expects NAME=[D0,D1,...] with non-negative integer extents, got '" + v + "'");
            shape_arg[v.substr(0, eq)] = ext;
        } else {
            die("unknown argument '" + a + "' (see --help)");
        }
    }

    // ---- scalars (an integer scalar also gives the dynamic dim of its name) ----
    DimSymbols syms;
    std::vector<uint64_t> scalars;
    for (int j = 0; j < prog.num_scalars; ++j) {
        const ScalarParamInfo& sp = prog.scalars[j];
        auto it = scalar_text.find(sp.name);
        if (it == scalar_text.end()) die(std::string("missing --scalar ") + sp.name + "=VALUE");
        scalars.push_back(parse_scalar(sp, it->second));
        if (sp.dtype == DataType::INT64 || sp.dtype == DataType::INT32)
            syms.bind(sp.name, sp.dtype == DataType::INT64 ? from_u64<int64_t>(scalars.back())
                                                           : from_u64<int32_t>(scalars.back()),
                      std::string("--scalar ") + sp.name);
        scalar_text.erase(it);
    }
    if (!scalar_text.empty()) die("unknown scalar parameter '" + scalar_text.begin()->first + "'");
    for (const auto& [name, ext] : shape_arg) {
        int found = -1;
        for (int i = 0; i < prog.num_tensors; ++i)
            if (name == prog.tensors[i].name) found = i;
        if (found < 0) die("--shape names '" + name + "', which is not a tensor parameter (see --help)");
        match_shape(prog.tensors[found], ext, "--shape " + name, syms);
    }

    // ---- tensors ----
    std::vector<HostTensor> host(static_cast<std::size_t>(prog.num_tensors));
    for (int i = 0; i < prog.num_tensors; ++i) {
        const TensorParamInfo& tp = prog.tensors[i];
        HostTensor& h = host[static_cast<std::size_t>(i)];
        const std::string descr = npy_descr_for(tp.dtype);
        if (descr.empty()) die(std::string("tensor '") + tp.name + "' has unsupported dtype " + get_dtype_name(tp.dtype));
        const bool is_input = tp.dir != ParamDir::Out;
        const fs::path file = inputs_dir.empty() ? fs::path() : fs::path(inputs_dir) / (std::string(tp.name) + ".npy");
        bool have_file = !inputs_dir.empty() && fs::exists(file);
        if (is_input && have_file) {
            NpyArray a;
            try {
                a = read_npy(file.string());
            } catch (const NpyError& e) {
                die(e.what());
            }
            if (a.descr != descr)
                die(file.string() + ": dtype " + a.descr + " does not match parameter '" + tp.name + "' (" +
                    get_dtype_name(tp.dtype) + ", expected " + descr + ")");
            match_shape(tp, a.shape, file.string(), syms);
            if (auto it = shape_arg.find(tp.name); it != shape_arg.end() && it->second != a.shape)
                die(file.string() + ": shape " + shape_str(a.shape) + ", but --shape " + tp.name + "=" +
                    shape_str(it->second));
            h.shape = a.shape;
            h.data = from_npy(std::move(a), tp.dtype);
            h.given = true;
            continue;
        }
        if (is_input && !have_seed)
            die(std::string("missing input '") + tp.name + "': no " +
                (inputs_dir.empty() ? std::string("--inputs directory") : file.string()) + " (or pass --seed N)");
    }
    // Generated inputs and Out tensors, once every given tensor has bound its dims.
    for (int i = 0; i < prog.num_tensors; ++i) {
        const TensorParamInfo& tp = prog.tensors[i];
        HostTensor& h = host[static_cast<std::size_t>(i)];
        const bool is_input = tp.dir != ParamDir::Out;
        if (h.given) continue;
        if (auto it = shape_arg.find(tp.name); it != shape_arg.end()) {
            h.shape = it->second;
        } else {
            h.shape.assign(tp.shape, tp.shape + tp.ndims);
            for (int d = 0; d < tp.ndims; ++d) {
                if (h.shape[static_cast<std::size_t>(d)] >= 0) continue;
                const auto* v = tp.dim_names[d] ? syms.find(tp.dim_names[d]) : nullptr;
                if (v) {
                    h.shape[static_cast<std::size_t>(d)] = v->first;
                    continue;
                }
                const std::string what = std::string(is_input ? "input '" : "output '") + tp.name + "' " +
                                         declared_shape(tp) + ": dim " + std::to_string(d);
                if (tp.dim_names[d])
                    die(what + " (" + tp.dim_names[d] + ") is given by no scalar and no tensor; pass --scalar " +
                        tp.dim_names[d] + "=N if it is a scalar parameter, an input that has it, or --shape " + tp.name +
                        "=[...]");
                die(what + " is dynamic; pass --shape " + tp.name + "=[...]" +
                    (is_input ? std::string(" or provide ") + tp.name + ".npy via --inputs" : std::string()));
            }
        }
        uint64_t n = 1;
        for (int64_t d : h.shape) {
            if (d > 0xFFFFFFFFll) die(std::string("tensor '") + tp.name + "' " + shape_str(h.shape) + ": an extent above 2^32 - 1");
            n = d == 0 || n <= (1ull << 40) / static_cast<uint64_t>(d) ? n * static_cast<uint64_t>(d) : (1ull << 41);
        }
        const uint64_t bytes = n * get_element_size(tp.dtype);
        if (const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
            pages > 0 && page > 0 && bytes > static_cast<uint64_t>(pages) * static_cast<uint64_t>(page))
            die(std::string("tensor '") + tp.name + "' " + shape_str(h.shape) + " needs " + std::to_string(bytes) +
                " bytes, more than this machine's memory (" +
                std::to_string(static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)) + " bytes)");
        try {
            if (is_input) {
                h.data = random_fill(tp.dtype, n, seed, i);
                h.generated = true;
                if (tp.dir == ParamDir::InOut) h.initial = h.data;
            } else {
                h.data.assign(n * get_element_size(tp.dtype), 0);
            }
        } catch (const std::bad_alloc&) {
            die(std::string("cannot allocate ") + std::to_string(n * get_element_size(tp.dtype)) + " bytes for tensor '" +
                tp.name + "' " + shape_str(h.shape));
        }
    }

    // ---- orchestration arguments ----
    std::vector<ChipTensor> chip(host.size());
    ChipTaskArgs args;
    for (std::size_t i = 0; i < host.size(); ++i) {
        uint32_t shp[MAX_TENSOR_DIMS] = {};
        for (std::size_t d = 0; d < host[i].shape.size() && d < static_cast<std::size_t>(MAX_TENSOR_DIMS); ++d)
            shp[d] = static_cast<uint32_t>(host[i].shape[d]);
        chip[i] = make_tensor_external(host[i].data.data(), shp, static_cast<uint32_t>(host[i].shape.size()),
                                       prog.tensors[i].dtype);
    }
    for (ChipTensor& t : chip) args.add_input(t);
    for (uint64_t s : scalars) args.add_scalar(s);
    if (prog.orchestration_config) {
        const PTO2OrchestrationConfig cfg = prog.orchestration_config(args);
        if (cfg.expected_arg_count != prog.num_tensors + prog.num_scalars)
            die("orchestration expects " + std::to_string(cfg.expected_arg_count) + " arguments, the program table lists " +
                std::to_string(prog.num_tensors + prog.num_scalars));
    }

    // ---- run ----
    install_crash_handler();
    // A kernel error ends that kernel (and the run) with an exception the executor records.
    pto::sim::fail_handler() = [](const std::string& m) { throw std::runtime_error(m); };
    ExecutorOptions opts;
    opts.clusters = clusters;
    opts.max_running = jobs;
    opts.check_races = check_races;
    opts.check_syncs = check_syncs;
    opts.orchestration_cpp = prog.orchestration_cpp;
    opts.orchestration_lines = prog.orchestration_lines;
    opts.num_orchestration_lines = prog.num_orchestration_lines;
    opts.trace = !trace_path.empty();
    Executor exec(std::vector<KernelInfo>(prog.kernels, prog.kernels + prog.num_kernels), opts);
    Progress progress(exec, !quiet && isatty(STDERR_FILENO));
    const bool ok = exec.run([&] { prog.orchestration_entry(args); });
    progress.stop();
    if (opts.trace) {
        std::string err;
        if (!exec.write_trace(trace_path, prog.name, &err)) die("--trace: " + err);
    }
    if (!ok) die(exec.error());

    // ---- outputs ----
    if (!outputs_dir.empty()) {
        std::error_code ec;
        fs::create_directories(outputs_dir, ec);
        if (ec) die("cannot create " + outputs_dir + ": " + ec.message());
        try {
            for (int i = 0; i < prog.num_tensors; ++i) {
                const TensorParamInfo& tp = prog.tensors[i];
                const HostTensor& h = host[static_cast<std::size_t>(i)];
                if (tp.dir != ParamDir::In || h.generated) write_tensor(outputs_dir, tp.name, tp, h.data, h.shape);
                if (!h.initial.empty())
                    write_tensor(outputs_dir, std::string(tp.name) + ".input", tp, h.initial, h.shape);
            }
        } catch (const NpyError& e) {
            die(e.what());
        }
    }
    std::printf("run: %s: %llu tasks (%d clusters: %d AIC + %d AIV workers), %.2f ms\n", prog.name,
                static_cast<unsigned long long>(exec.stats().tasks), clusters, clusters, 2 * clusters,
                exec.stats().millis);
    if (!exec.findings().empty()) {
        std::fflush(stdout);
        for (const std::string& f : exec.findings()) std::fprintf(stderr, "run: %s\n", f.c_str());
        std::string which = check_races && check_syncs ? "--check-races / --check-syncs"
                            : check_races              ? "--check-races"
                                                       : "--check-syncs";
        die(which + " found " + std::to_string(exec.findings().size()) + " problem" +
            (exec.findings().size() == 1 ? "" : "s") + " (above)");
    }
    return 0;
}
