// pypto CPU runtime: the checkers' side of the executor — the hooks a dispatch gives the tile API
// (pto::sim::KernelContext: task description, source lines from the program table's line maps,
// the explanation of an out-of-extent GM access, GM access records for --check-races, sync
// findings), and the messages of --check-races after a run. See pypto_rt/executor.h.
#include <algorithm>
#include <string>

#include "executor_internal.h"

namespace pypto_rt {

namespace {

std::string shape_text(const uint32_t* s, uint32_t n) {
    std::string r = "[";
    for (uint32_t i = 0; i < n; ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + "]";
}

// The access as a view of its buffer: dimensions of extent 1 dropped (they only shift the start),
// strides in elements. Misaligned accesses (another element size than the buffer's) become their
// bounding byte range.
Region touch_region(uint64_t buffer, const pto::sim::GmAccess& a) {
    Region r;
    r.buffer = buffer;
    const uint64_t off = a.addr - buffer;
    if (a.elem_size == 0 || off % a.elem_size != 0) {
        r.elem_size = 1;
        r.start = off;
        r.ndims = 1;
        r.shapes[0] = static_cast<uint32_t>(a.hi() - a.lo());
        r.strides[0] = 1;
        return r;
    }
    r.elem_size = a.elem_size;
    r.start = off / a.elem_size;
    for (int k = 0; k < 5; ++k)
        if (a.shape[k] > 1 && r.ndims < static_cast<uint32_t>(MAX_TENSOR_DIMS)) {
            r.shapes[r.ndims] = static_cast<uint32_t>(a.shape[k]);
            r.strides[r.ndims] = static_cast<uint32_t>(a.stride[k]);
            ++r.ndims;
        }
    if (r.ndims == 0) {
        r.ndims = 1;
        r.shapes[0] = 1;
        r.strides[0] = 1;
    }
    return r;
}

}  // namespace

// ---- names and source lines ----

std::string Executor::kernel_where(const KernelInfo& k, uint32_t cpp_line) const {
    if (cpp_line == 0) return "an unknown line";
    const std::string cpp = k.cpp ? std::string(k.cpp) + ":" + std::to_string(cpp_line) : "line " + std::to_string(cpp_line);
    if (const SourceLine* s = find_source_line(k.lines, k.num_lines, cpp_line); s && s->file)
        return std::string(s->file) + ":" + std::to_string(s->line) + " (" + cpp + ")";
    return cpp;
}

std::string Executor::task_label(const Task& t) const {
    std::string s = "task " + std::to_string(t.seq);
    if (t.submit_line == 0) return s;
    const std::string cpp = opts_.orchestration_cpp
                                ? std::string(opts_.orchestration_cpp) + ":" + std::to_string(t.submit_line)
                                : "orchestration line " + std::to_string(t.submit_line);
    if (const SourceLine* l = find_source_line(opts_.orchestration_lines, opts_.num_orchestration_lines, t.submit_line);
        l && l->file)
        return s + " (submitted at " + l->file + ":" + std::to_string(l->line) + ", " + cpp + ")";
    return s + " (submitted at " + cpp + ")";
}

std::string Executor::arg_label(const KernelInfo& k, int arg) const {
    std::string s = "tensor argument " + std::to_string(arg);
    if (k.tensor_params && arg >= 0 && arg < k.num_tensor_params) s += " '" + std::string(k.tensor_params[arg]) + "'";
    return s;
}

// ---- the tile API's hooks ----

std::string Executor::describe_hook(const pto::sim::KernelContext& k) {
    const auto& jc = *static_cast<const JobContext*>(k.job);
    const Executor& ex = *jc.ex;
    std::string s = ex.task_label(*jc.task) + ", kernel '" + std::string(k.name ? k.name : "?") + "' (func_id " +
                    std::to_string(k.func_id);
    if (jc.kernel->source) s += ", " + std::string(jc.kernel->source) + ":" + std::to_string(jc.kernel->line);
    if (jc.task->block_num > 1) s += ", block " + std::to_string(jc.block) + " of " + std::to_string(jc.task->block_num);
    if (jc.sub_block) s += ", AIV lane " + std::to_string(jc.sub_block);
    s += ")";
    if (k.instr) s += ", " + std::string(k.instr) + " at " + ex.kernel_where(*jc.kernel, k.line);
    return s;
}

std::string Executor::locate_hook(const pto::sim::KernelContext& k, uint32_t cpp_line) {
    const auto& jc = *static_cast<const JobContext*>(k.job);
    return jc.ex->kernel_where(*jc.kernel, cpp_line);
}

std::string Executor::explain_gm_hook(const pto::sim::KernelContext& k, const pto::sim::GmAccess& a) {
    const auto& jc = *static_cast<const JobContext*>(k.job);
    const Executor& ex = *jc.ex;
    const uint64_t lo = a.lo(), hi = a.hi();
    if (k.num_views == 0) return "the kernel has no tensor argument";
    // The argument the access belongs to: the one whose buffer holds its first byte, else its
    // last, else the nearest buffer.
    int best = -1;
    for (int i = 0; i < k.num_views && best < 0; ++i)
        if (lo >= k.views[i].buf_lo && lo < k.views[i].buf_hi) best = i;
    for (int i = 0; i < k.num_views && best < 0; ++i)
        if (hi - 1 >= k.views[i].buf_lo && hi - 1 < k.views[i].buf_hi) best = i;
    if (best < 0) {
        uint64_t dist = UINT64_MAX;
        for (int i = 0; i < k.num_views; ++i) {
            const uint64_t d = lo >= k.views[i].buf_hi ? lo - k.views[i].buf_hi + 1 : k.views[i].buf_lo - lo;
            if (d < dist) dist = d, best = i;
        }
    }
    const ChipTensor& ct = jc.task->tensors[static_cast<std::size_t>(best)];
    const pto::sim::GmView& v = k.views[best];
    const uint64_t es = std::max<uint64_t>(1, get_element_size(ct.dtype));
    auto elem = [&](uint64_t byte) {
        return byte >= v.buf_lo ? std::to_string((byte - v.buf_lo) / es) : "-" + std::to_string((v.buf_lo - byte + es - 1) / es);
    };
    std::string acc_shape;
    {
        const Region r = touch_region(v.buf_lo, a);
        acc_shape = shape_text(r.shapes, r.ndims);
    }
    const uint64_t buf_elems = ct.buffer.size / es;
    std::string s = "it touches elements [" + elem(lo) + ", " + elem(hi) + ") (a " + acc_shape + " block) of the buffer of " +
                    ex.arg_label(*jc.kernel, best) + ", whose view is " + get_dtype_name(ct.dtype) + " " +
                    shape_text(ct.shapes, ct.ndims) + " = elements [" + std::to_string(ct.start_offset) + ", " +
                    std::to_string(ct.start_offset + (ct.numel() ? ct.extent_elem() : 0)) + ") of its " +
                    std::to_string(buf_elems) + "-element buffer";
    if (lo < v.buf_lo || hi > v.buf_hi) s += " (the access leaves the buffer: it reaches foreign memory on the NPU)";
    return s;
}

void Executor::on_gm_hook(const pto::sim::KernelContext& k, const pto::sim::GmAccess& a, int view) {
    auto& jc = *static_cast<JobContext*>(k.job);
    GmTouch g;
    g.arg = view;
    g.region = touch_region(jc.task->tensors[static_cast<std::size_t>(view)].buffer.addr, a);
    g.write = a.write;
    g.kernel_id = jc.kernel_id;
    g.instr = k.instr;
    g.line = k.line;
    if (!jc.touches.empty()) {
        const GmTouch& p = jc.touches.back();
        if (p.write == g.write && p.arg == g.arg && p.line == g.line && p.region.same_as(g.region)) return;
    }
    jc.touches.push_back(g);
}

void Executor::report_hook(const pto::sim::KernelContext& k, const std::string& msg) {
    const auto& jc = *static_cast<const JobContext*>(k.job);
    jc.ex->add_finding("check-syncs: " + msg);
}

void Executor::add_finding(const std::string& msg) {
    constexpr std::size_t kMaxFindings = 100;
    std::lock_guard<std::mutex> lk(findings_mu_);
    if (std::find(findings_.begin(), findings_.end(), msg) != findings_.end()) return;
    if (findings_.size() == kMaxFindings) findings_.push_back("(further findings omitted)");
    if (findings_.size() > kMaxFindings) return;
    findings_.push_back(msg);
}

// ---- --check-races messages ----

void Executor::find_races() {
    for (const RaceReport& r : races_.find_races(20)) {
        const Task& ta = *tasks_[r.first_task];
        const Task& tb = *tasks_[r.second_task];
        const TensorArgType tag_a = races_.tags(r.first_task)[static_cast<std::size_t>(r.first.arg)];
        const TensorArgType tag_b = races_.tags(r.second_task)[static_cast<std::size_t>(r.second.arg)];
        auto side = [&](const Task& t, const GmTouch& g, TensorArgType tag) {
            static const char* const kTags[] = {"INPUT", "OUTPUT", "INOUT", "OUTPUT_EXISTING", "NO_DEP"};
            const KernelInfo& k = kernels_[static_cast<std::size_t>(g.kernel_id)];
            const std::string kind = kTags[static_cast<int>(tag)];
            const std::string arg =
                k.tensor_params && g.arg < k.num_tensor_params
                    ? "'" + std::string(k.tensor_params[g.arg]) + "' (" + kind + " argument " + std::to_string(g.arg) +
                          " of kernel '" + k.name + "')"
                    : "argument " + std::to_string(g.arg) + " (" + kind + ") of kernel '" + k.name + "'";
            return task_label(t) + (g.write ? " writes " : " reads ") + arg + " in " + (g.instr ? g.instr : "an access") +
                   " at " + kernel_where(k, g.line);
        };
        std::string why;
        if (!r.first.write)
            why = "a write after a read is never ordered by tensor regions; make the writer depend on the reader "
                  "(e.g. let it read a tensor the reader writes) or write a fresh tensor";
        else if (r.second.write && tag_b == TensorArgType::OUTPUT_EXISTING)
            why = "an OUTPUT_EXISTING argument (add_output of an existing tensor) looks up no earlier writer; INOUT would";
        else if (tag_a == TensorArgType::INPUT || tag_a == TensorArgType::NO_DEP)
            why = "the first task writes through an argument it does not declare as written, so no later task waits for it";
        else if (r.second.write)
            why = "the later task's access is not ordered after the earlier write by any tensor, creator or explicit dependency";
        else
            why = "the reader's argument (NO_DEP, manual_dep or in a MANUAL scope) looks up no writer, and no explicit "
                  "dependency orders it";
        add_finding("check-races: " + side(ta, r.first, tag_a) + "; " + side(tb, r.second, tag_b) +
                    ". The two touch overlapping bytes of one buffer and the reference runtime's ordering rules "
                    "leave them unordered: " + why);
    }
}

}  // namespace pypto_rt
