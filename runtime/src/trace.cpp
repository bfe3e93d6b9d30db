// pypto CPU runtime: `bin/run --trace FILE.json` — the executed task graph in the Chrome trace
// event format (Perfetto and chrome://tracing open it), the CPU counterpart of the device's
// swimlanes. One track per simulated core (cluster c: AIC, AIV0, AIV1), one complete ("X") slice
// per kernel run, named by the kernel, with its task, func_id, DSL location, the source line of
// its submit and its tensor arguments (parameter, tag, buffer and region); one flow arrow ("s" →
// "f") per dependency edge, from the producer's last kernel run to the consumer's first, named by
// its reasons: RAW / WAR / WAW on an overlapping region, creator (the task that allocated a
// tensor the consumer touches), deps (explicit set_dependencies / deps=). Times are microseconds
// from the start of the run.
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "executor_internal.h"
#include "pypto_rt/region.h"

namespace pypto_rt {

namespace {

using Json = nlohmann::ordered_json;

const char* tag_name(TensorArgType t) {
    switch (t) {
        case TensorArgType::INPUT: return "INPUT";
        case TensorArgType::OUTPUT: return "OUTPUT";
        case TensorArgType::INOUT: return "INOUT";
        case TensorArgType::OUTPUT_EXISTING: return "OUTPUT_EXISTING";
        case TensorArgType::NO_DEP: return "NO_DEP";
    }
    return "?";
}

std::string reasons(uint8_t why) {
    static const std::pair<uint8_t, const char*> kNames[] = {{1, "RAW"}, {2, "WAR"}, {4, "WAW"}, {8, "creator"},
                                                             {16, "deps"}};
    std::string s;
    for (const auto& [bit, name] : kNames)
        if (why & bit) s += (s.empty() ? "" : "+") + std::string(name);
    return s.empty() ? "dependency" : s;
}

std::string dims(const uint32_t* d, uint32_t n) {
    std::string s = "[";
    for (uint32_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
}

double micros(uint64_t ns, uint64_t origin) { return static_cast<double>(ns - origin) / 1000.0; }

}  // namespace

bool Executor::write_trace(const std::string& path, const char* program_name, std::string* err) const {
    static const char* kRole[3] = {"AIC", "AIV0", "AIV1"};
    Json events = Json::array();
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0},
                      {"args", {{"name", std::string("pypto CPU runtime: ") + (program_name ? program_name : "")}}}});
    for (std::size_t w = 0; w < trace_.size(); ++w) {
        const std::string name = "cluster " + std::to_string(w / 3) + " " + kRole[w % 3];
        events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", w}, {"args", {{"name", name}}}});
        events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", w},
                          {"args", {{"sort_index", w}}}});
    }
    // Per task: its first and last kernel run (where its flow arrows start and end).
    struct Ends {
        const TraceSlice* first = nullptr;
        const TraceSlice* last = nullptr;
        int first_worker = 0, last_worker = 0;
    };
    std::map<uint64_t, Ends> ends;
    for (std::size_t w = 0; w < trace_.size(); ++w) {
        for (const TraceSlice& s : trace_[w]) {
            const Task& t = *s.task;
            const KernelInfo& k = kernels_[static_cast<std::size_t>(s.kernel_id)];
            Json args = {{"task", t.seq}, {"func_id", k.func_id}};
            if (k.source) args["kernel_source"] = std::string(k.source) + ":" + std::to_string(k.line);
            args["submit"] = task_label(t);
            if (t.block_num > 1) args["block"] = std::to_string(s.block) + " of " + std::to_string(t.block_num);
            if (s.sub_block) args["aiv_lane"] = s.sub_block;
            Json tensors = Json::array();
            for (std::size_t i = 0; i < t.tensors.size(); ++i) {
                const ChipTensor& ct = t.tensors[i];
                const Region r = Region::of(ct);
                Json a;
                a["param"] = k.tensor_params && static_cast<int>(i) < k.num_tensor_params ? k.tensor_params[i]
                                                                                          : "arg " + std::to_string(i);
                if (i < t.trace_tags.size()) a["tag"] = tag_name(t.trace_tags[i]);
                a["buffer"] = ct.buffer.addr;  // identifies the tensor across tasks
                a["offset"] = r.start;
                a["shape"] = dims(r.shapes, r.ndims);
                a["strides"] = dims(r.strides, r.ndims);
                tensors.push_back(std::move(a));
            }
            args["tensors"] = std::move(tensors);
            if (!t.scalars.empty()) args["scalars"] = t.scalars;
            events.push_back({{"name", k.name ? k.name : "?"},
                              {"cat", "kernel"},
                              {"ph", "X"},
                              {"ts", micros(s.start_ns, run_start_ns_)},
                              {"dur", micros(s.end_ns, s.start_ns)},
                              {"pid", 0},
                              {"tid", w},
                              {"args", std::move(args)}});
            Ends& e = ends[t.seq];
            if (!e.first || s.start_ns < e.first->start_ns) e.first = &s, e.first_worker = static_cast<int>(w);
            if (!e.last || s.end_ns > e.last->end_ns) e.last = &s, e.last_worker = static_cast<int>(w);
        }
    }
    // Flow arrows: bound to the enclosing slices (the producer's at its end, the consumer's at its
    // start). Edges through a dummy task (it runs no kernel) have no slice to bind to and are left out.
    uint64_t flow_id = 0;
    for (const auto& owned : tasks_) {
        const Task& t = *owned;
        auto to = ends.find(t.seq);
        if (to == ends.end()) continue;
        for (const auto& [producer, why] : t.trace_deps) {
            auto from = ends.find(producer->seq);
            if (from == ends.end()) continue;
            const std::string name = reasons(why);
            const uint64_t id = ++flow_id;
            Json fargs = {{"from_task", producer->seq}, {"to_task", t.seq}};
            events.push_back({{"name", name}, {"cat", "dependency"}, {"ph", "s"}, {"id", id},
                              {"ts", micros(from->second.last->end_ns, run_start_ns_) - 0.001},
                              {"pid", 0}, {"tid", from->second.last_worker}, {"args", fargs}});
            events.push_back({{"name", name}, {"cat", "dependency"}, {"ph", "f"}, {"bp", "e"}, {"id", id},
                              {"ts", micros(to->second.first->start_ns, run_start_ns_)},
                              {"pid", 0}, {"tid", to->second.first_worker}, {"args", fargs}});
        }
    }
    Json doc = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
        if (err) *err = "cannot open " + path + " for writing";
        return false;
    }
    out << doc.dump(1, ' ', false, Json::error_handler_t::replace) << "\n";
    out.close();
    if (!out) {
        if (err) *err = "cannot write " + path;
        return false;
    }
    return true;
}

}  // namespace pypto_rt
