// pypto CPU runtime: `bin/run --trace FILE.json` — the executed task graph in the Chrome trace
// event format (Perfetto and chrome://tracing open it), the CPU counterpart of the device's
// swimlanes. One track per simulated core (cluster c: AIC, AIV0, AIV1), one complete ("X") slice
// per kernel run, named by the kernel, with its task, func_id, DSL location, the source line of
// its submit and its tensor arguments (parameter, tag, buffer and region); one flow arrow ("s" →
// "f") per dependency edge, from the producer's last kernel run to the consumer's first, named by
// its reasons: RAW / WAR / WAW on an overlapping region, creator (the task that allocated a
// tensor the consumer touches), deps (explicit set_dependencies / deps=). Times are microseconds
// from the start of the run. A path ending in .svg gets a picture of the same run instead.
#include <cstdio>
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

namespace {

std::string xml_text(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '<') o += "&lt;";
        else if (c == '>') o += "&gt;";
        else if (c == '&') o += "&amp;";
        else if (c == '"') o += "&quot;";
        else o += c;
    }
    return o;
}

bool write_text(const std::string& path, const std::string& text, std::string* err) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
        if (err) *err = "cannot open " + path + " for writing";
        return false;
    }
    out << text;
    out.close();
    if (!out) {
        if (err) *err = "cannot write " + path;
        return false;
    }
    return true;
}

}  // namespace

bool Executor::write_trace(const std::string& path, const char* program_name, std::string* err) const {
    const bool svg = path.size() >= 4 && path.compare(path.size() - 4, 4, ".svg") == 0;
    return write_text(path, svg ? trace_svg(program_name) : trace_json(program_name), err);
}

// A picture of the same run: a row per simulated core, a box per kernel run (its facts in the
// tooltip), an arrow per dependency edge from the producer's end to the consumer's start.
std::string Executor::track_name(std::size_t w) const {
    static const char* kRole[3] = {"AIC", "AIV0", "AIV1"};
    if (w >= trace_.size()) return "dependency-only tasks";
    return "cluster " + std::to_string(w / 3) + " " + kRole[w % 3];
}

std::map<uint64_t, Executor::TaskEnds> Executor::task_ends() const {
    std::map<uint64_t, TaskEnds> ends;
    for (std::size_t w = 0; w < trace_tracks(); ++w)
        for (const TraceSlice& s : trace_track(w)) {
            TaskEnds& e = ends[s.task->seq];
            if (!e.first || s.start_ns < e.first->start_ns) e.first = &s, e.first_worker = static_cast<int>(w);
            if (!e.last || s.end_ns > e.last->end_ns) e.last = &s, e.last_worker = static_cast<int>(w);
        }
    return ends;
}

std::string Executor::trace_svg(const char* program_name) const {
    constexpr int kLeft = 110, kWidth = 820, kRow = 30, kTop = 44;
    uint64_t end = run_start_ns_ + 1;
    const auto ends = task_ends();
    for (const auto& [seq, e] : ends) end = std::max(end, e.last->end_ns);
    const double span = static_cast<double>(end - run_start_ns_);
    auto x_of = [&](uint64_t ns) { return kLeft + static_cast<double>(ns - run_start_ns_) / span * kWidth; };
    const int rows = static_cast<int>(trace_tracks());
    const int height = kTop + rows * kRow + 30;
    std::string o;
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                  "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" "
                  "markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#1f4e79\"/></marker></defs>\n"
                  "<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s: %zu kernel runs in %.3f ms</text>\n",
                  kLeft + kWidth + 20, height, kLeft + kWidth + 20, height, kLeft,
                  xml_text(std::string("pypto CPU runtime trace of ") + (program_name ? program_name : "")).c_str(),
                  [&] { std::size_t n = 0; for (const auto& t : trace_) n += t.size(); return n; }(), span / 1e6);
    o += buf;
    for (int w = 0; w < rows; ++w) {
        const int y = kTop + w * kRow;
        std::snprintf(buf, sizeof buf,
                      "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n<line x1=\"%d\" x2=\"%d\" "
                      "y1=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
                      kLeft - 8, y + kRow / 2 + 4, xml_text(track_name(static_cast<std::size_t>(w))).c_str(), kLeft,
                      kLeft + kWidth, y + kRow, y + kRow);
        o += buf;
        for (const TraceSlice& s : trace_track(static_cast<std::size_t>(w))) {
            if (s.kernel_id < 0) {  // a dependency-only task: a diamond at the moment it completed
                std::snprintf(buf, sizeof buf,
                              "<path class=\"dummy\" d=\"M%.1f,%d l5,5 l-5,5 l-5,-5 z\" fill=\"#888\"><title>",
                              x_of(s.start_ns), y + kRow / 2 - 5);
                o += buf + xml_text("task_dummy: " + task_label(*s.task)) + "</title></path>\n";
                continue;
            }
            const KernelInfo& k = kernels_[static_cast<std::size_t>(s.kernel_id)];
            const std::string name = k.name ? k.name : "?";
            uint32_t hue = 2166136261u;  // FNV-1a of the kernel name, spread over the colour wheel
            for (char c : name) hue = (hue ^ static_cast<unsigned char>(c)) * 16777619u;
            hue = (hue >> 8) % 360;
            const double x = x_of(s.start_ns), wd = std::max(1.5, x_of(s.end_ns) - x);
            std::snprintf(buf, sizeof buf,
                          "<rect class=\"slice\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"hsl(%u,55%%,70%%)\" "
                          "stroke=\"hsl(%u,55%%,35%%)\"><title>",
                          x, y + 4, wd, kRow - 8, hue, hue);
            o += buf;
            std::snprintf(buf, sizeof buf, "%s (func_id %d): %s, %.1f us", name.c_str(), k.func_id,
                          task_label(*s.task).c_str(), static_cast<double>(s.end_ns - s.start_ns) / 1e3);
            o += xml_text(buf) + "</title></rect>\n";
            if (wd > 7.0 * static_cast<double>(name.size())) {
                std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + kRow / 2 + 4);
                o += buf + xml_text(name) + "</text>\n";
            }
        }
    }
    for (const auto& owned : tasks_) {
        const Task& t = *owned;
        auto to = ends.find(t.seq);
        if (to == ends.end()) continue;
        for (const auto& [producer, why] : t.trace_deps) {
            auto from = ends.find(producer->seq);
            if (from == ends.end()) continue;
            std::snprintf(buf, sizeof buf,
                          "<line class=\"dep\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#1f4e79\" "
                          "marker-end=\"url(#arrow)\"><title>",
                          x_of(from->second.last->end_ns), kTop + from->second.last_worker * kRow + kRow / 2,
                          x_of(to->second.first->start_ns), kTop + to->second.first_worker * kRow + kRow / 2);
            o += buf + xml_text("task " + std::to_string(producer->seq) + " -> task " + std::to_string(t.seq) + ": " +
                                reasons(why)) +
                 "</title></line>\n";
        }
    }
    std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" fill=\"#444\">0</text><text x=\"%d\" y=\"%d\" "
                  "text-anchor=\"end\" fill=\"#444\">%.3f ms</text>\n",
                  kLeft, height - 10, kLeft + kWidth, height - 10, span / 1e6);
    o += buf;
    return o + "</svg>\n";
}

std::string Executor::trace_json(const char* program_name) const {
    Json events = Json::array();
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0},
                      {"args", {{"name", std::string("pypto CPU runtime: ") + (program_name ? program_name : "")}}}});
    for (std::size_t w = 0; w < trace_tracks(); ++w) {
        const std::string name = track_name(w);
        events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", w}, {"args", {{"name", name}}}});
        events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", w},
                          {"args", {{"sort_index", w}}}});
    }
    const auto ends = task_ends();
    for (std::size_t w = 0; w < trace_tracks(); ++w) {
        for (const TraceSlice& s : trace_track(w)) {
            const Task& t = *s.task;
            if (s.kernel_id < 0) {  // a dependency-only task: an instant slice where its edges meet
                events.push_back({{"name", "task_dummy"}, {"cat", "dependency-only"}, {"ph", "X"},
                                  {"ts", micros(s.start_ns, run_start_ns_)}, {"dur", 0}, {"pid", 0}, {"tid", w},
                                  {"args", {{"task", t.seq}, {"submit", task_label(t)}}}});
                continue;
            }
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
        }
    }
    // Flow arrows: bound to the enclosing slices (the producer's at its end, the consumer's at its
    // start); a dependency-only task's instant on its own track.
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
    return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace pypto_rt
