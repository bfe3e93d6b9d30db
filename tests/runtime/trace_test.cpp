// The executor's task trace (runtime/src/trace.cpp, `bin/run --trace`): a Chrome trace event file
// with one named track per simulated core, one slice per kernel run carrying its task, func_id and
// tensor arguments, and one flow arrow per dependency edge named by why the consumer waits (RAW,
// WAR, WAW, deps). Checked by parsing the file back and comparing with the graph the test built.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "pto_orchestration_api.h"
#include "pypto_rt/executor.h"

using namespace pypto_rt;
namespace fs = std::filesystem;

namespace {

float* data_of(int64_t* args, int k) {
    auto* t = reinterpret_cast<ChipTensor*>(args[k]);
    return reinterpret_cast<float*>(t->buffer.addr) + t->start_offset;
}
uint64_t numel_of(int64_t* args, int k) { return reinterpret_cast<ChipTensor*>(args[k])->numel(); }

void k_fill(int64_t* args) {  // out, value
    for (uint64_t i = 0; i < numel_of(args, 0); ++i) data_of(args, 0)[i] = from_u64<float>(static_cast<uint64_t>(args[1]));
}
void k_copy(int64_t* args) {  // in, out
    for (uint64_t i = 0; i < numel_of(args, 0); ++i) data_of(args, 1)[i] = data_of(args, 0)[i];
}
const char* const kFillParams[] = {"out"};
const char* const kCopyParams[] = {"src", "dst"};

std::vector<KernelInfo> kernels() {
    KernelInfo fill{0, "fill", CoreType::AIV, k_fill};
    fill.source = "model.py";
    fill.line = 7;
    fill.tensor_params = kFillParams;
    fill.num_tensor_params = 1;
    KernelInfo copy{1, "copy", CoreType::AIV, k_copy};
    copy.tensor_params = kCopyParams;
    copy.num_tensor_params = 2;
    return {fill, copy};
}

struct Buf {
    std::vector<float> v;
    ChipTensor t;
    explicit Buf(uint32_t n) : v(n, 0.0f) {
        const uint32_t shp[2] = {n / 8, 8};
        t = make_tensor_external(v.data(), shp, 2, DataType::FLOAT32);
    }
};

PTO2TaskId fill(const ChipTensor& out, float v) {
    CoreTaskArgs a;
    a.add_output(out);
    a.add_scalar(to_u64(v));
    return rt_submit_aiv_task(0, a).task_id();
}
PTO2TaskId copy(const ChipTensor& in, const ChipTensor& out, const PTO2TaskId* deps = nullptr, uint32_t n = 0) {
    CoreTaskArgs a;
    a.add_input(in);
    a.add_output(out);
    if (n) a.set_dependencies(deps, n);
    return rt_submit_aiv_task(1, a).task_id();
}

}  // namespace

TEST_CASE("the trace holds the executed task graph: tracks, kernel slices and reasoned dependency arrows",
          "[executor][trace]") {
    ExecutorOptions o;
    o.clusters = 2;
    o.trace = true;
    Executor ex(kernels(), o);
    Buf a(64), b(64), c(64), d(64);
    REQUIRE(ex.run([&] {
        fill(a.t, 1.0f);          // task 0
        copy(a.t, b.t);           // task 1: RAW on a (task 0)
        fill(a.t, 2.0f);          // task 2: WAW (task 0), WAR (task 1) on a
        PTO2_SCOPE(PTO2ScopeMode::MANUAL) {
            const PTO2TaskId t3 = fill(c.t, 3.0f);  // task 3
            copy(c.t, d.t, &t3, 1);                // task 4: only its explicit dependency
        }
    }));
    CHECK(b.v[0] == 1.0f);
    CHECK(a.v[0] == 2.0f);
    CHECK(d.v[0] == 3.0f);
    fs::create_directories(PYPTO_TEST_WORK_DIR);
    const fs::path file = fs::path(PYPTO_TEST_WORK_DIR) / "trace_test.json";
    std::string err;
    REQUIRE(ex.write_trace(file.string(), "prog", &err));
    std::ifstream in(file);
    const auto doc = nlohmann::json::parse(in);
    const auto& ev = doc.at("traceEvents");

    std::map<int, std::string> tracks;
    std::map<int, nlohmann::json> slices;  // by task
    std::map<int, std::pair<nlohmann::json, nlohmann::json>> flows;  // by id: s, f
    for (const auto& e : ev) {
        const std::string ph = e.at("ph");
        if (ph == "M" && e.at("name") == "thread_name") tracks[e.at("tid")] = e.at("args").at("name");
        if (ph == "M" && e.at("name") == "process_name") CHECK(e.at("args").at("name") == "pypto CPU runtime: prog");
        if (ph == "X") slices[e.at("args").at("task")] = e;
        if (ph == "s") flows[e.at("id")].first = e;
        if (ph == "f") flows[e.at("id")].second = e;
    }
    // 2 clusters x (AIC, AIV0, AIV1).
    REQUIRE(tracks.size() == 6);
    CHECK(tracks[0] == "cluster 0 AIC");
    CHECK(tracks[4] == "cluster 1 AIV0");
    CHECK(tracks[5] == "cluster 1 AIV1");
    // One slice per kernel run, on an AIV track, with the kernel's facts and its arguments.
    REQUIRE(slices.size() == 5);
    for (const auto& [task, s] : slices) {
        INFO(s.dump());
        CHECK(s.at("name") == (task == 1 || task == 4 ? "copy" : "fill"));
        CHECK(int(s.at("tid")) % 3 != 0);
        CHECK(s.at("dur").get<double>() >= 0.0);
        CHECK(s.at("args").at("func_id") == (task == 1 || task == 4 ? 1 : 0));
    }
    CHECK(slices[0].at("args").at("kernel_source") == "model.py:7");
    const auto& targs = slices[1].at("args").at("tensors");
    REQUIRE(targs.size() == 2);
    CHECK(targs[0].at("param") == "src");
    CHECK(targs[0].at("tag") == "INPUT");
    CHECK(targs[1].at("param") == "dst");
    CHECK(targs[1].at("tag") == "OUTPUT_EXISTING");
    CHECK(targs[1].at("shape") == "[8, 8]");
    CHECK(targs[0].at("buffer") == slices[0].at("args").at("tensors")[0].at("buffer"));  // the same tensor a
    CHECK(slices[0].at("args").at("scalars").size() == 1);

    // The dependency edges, each an s/f pair between the two tasks' slices, named by its reasons.
    std::set<std::tuple<int, int, std::string>> edges;
    for (const auto& [id, sf] : flows) {
        const auto& [s, f] = sf;
        REQUIRE(!s.is_null());
        REQUIRE(!f.is_null());
        CHECK(s.at("name") == f.at("name"));
        CHECK(f.at("bp") == "e");
        const int from = s.at("args").at("from_task"), to = s.at("args").at("to_task");
        edges.emplace(from, to, s.at("name"));
        // The arrow leaves the producer's slice at its end and enters the consumer's at its start,
        // which is not earlier: the consumer waited.
        const auto& ps = slices[from];
        const auto& cs = slices[to];
        CHECK(s.at("tid") == ps.at("tid"));
        CHECK(f.at("tid") == cs.at("tid"));
        CHECK(s.at("ts").get<double>() <= ps.at("ts").get<double>() + ps.at("dur").get<double>());
        CHECK(s.at("ts").get<double>() >= ps.at("ts").get<double>());
        CHECK(f.at("ts") == cs.at("ts"));
        CHECK(cs.at("ts").get<double>() >= ps.at("ts").get<double>() + ps.at("dur").get<double>() - 0.001);
    }
    CHECK(edges == std::set<std::tuple<int, int, std::string>>{
                       {0, 1, "RAW"}, {0, 2, "WAW"}, {1, 2, "WAR"}, {3, 4, "deps"}});
}

TEST_CASE("a trace file named .svg is a picture of the same run", "[executor][trace]") {
    ExecutorOptions o;
    o.trace = true;
    Executor ex(kernels(), o);
    Buf a(64), b(64);
    REQUIRE(ex.run([&] {
        fill(a.t, 1.0f);
        copy(a.t, b.t);
        fill(b.t, 2.0f);
    }));
    fs::create_directories(PYPTO_TEST_WORK_DIR);
    const fs::path file = fs::path(PYPTO_TEST_WORK_DIR) / "trace_test.svg";
    std::string err;
    REQUIRE(ex.write_trace(file.string(), "p<1>", &err));
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string svg = ss.str();
    auto count = [&](const std::string& what) {
        size_t n = 0;
        for (size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
        return n;
    };
    CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
    CHECK(count("class=\"slice\"") == 3);  // one box per kernel run
    CHECK(count("class=\"dep\"") == 2);    // 0 -> 1 RAW on a, 1 -> 2 WAW on b
    CHECK(count("<text x=\"") >= 7);        // the six core rows' labels and the title
    CHECK(svg.find("p&lt;1&gt;") != std::string::npos);  // escaped
    CHECK(svg.find("task 0 -&gt; task 1: RAW") != std::string::npos);
    CHECK(svg.find("task 1 -&gt; task 2: WAW") != std::string::npos);
}

TEST_CASE("a trace that cannot be written is an error, not a crash", "[executor][trace]") {
    ExecutorOptions o;
    o.trace = true;
    Executor ex(kernels(), o);
    Buf a(64);
    REQUIRE(ex.run([&] { fill(a.t, 1.0f); }));
    std::string err;
    CHECK_FALSE(ex.write_trace((fs::path(PYPTO_TEST_WORK_DIR) / "no such dir" / "t.json").string(), "p", &err));
    CHECK(err.find("cannot open") != std::string::npos);
}
