// pypto CPU runtime: the --check-races checker (pypto_rt/race_checker.h): the reference runtime's
// dependency edges, ancestor bitsets, and the search for unordered conflicting accesses.
#include "pypto_rt/race_checker.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace pypto_rt {

RefOverlap reference_overlap(const ChipTensor& in, const ChipTensor& e) {
    if (in.version > e.version) return RefOverlap::OTHER;
    // Element ranges (in each view's own element units, as the reference compares them).
    const uint64_t in_lo = in.start_offset, in_hi = in.start_offset + in.extent_elem();
    const uint64_t e_lo = e.start_offset, e_hi = e.start_offset + e.extent_elem();
    if (!(in_hi > e_lo && e_hi > in_lo)) return RefOverlap::NONE;
    // Per-dimension test only for one row-major-like axis layout.
    if (in.dtype != e.dtype || in.ndims != e.ndims || e.ndims == 0) return RefOverlap::OTHER;
    const uint32_t n = e.ndims;
    for (uint32_t i = 0; i < n; ++i)
        if (in.strides[i] != e.strides[i]) return RefOverlap::OTHER;
    if (e.strides[n - 1] != 1) return RefOverlap::OTHER;
    for (uint32_t i = 1; i < n; ++i)
        if (e.strides[i] == 0 || e.strides[i - 1] % e.strides[i] != 0) return RefOverlap::OTHER;
    // The full shape the strides imply (the first dimension from the buffer size).
    uint64_t full[MAX_TENSOR_DIMS] = {};
    for (uint32_t i = 1; i < n; ++i) full[i] = e.strides[i - 1] / e.strides[i];
    const uint64_t es = get_element_size(e.dtype);
    if (es == 0 || e.strides[0] == 0) return RefOverlap::OTHER;
    const uint64_t storage = in.buffer.size / es;
    if (storage % e.strides[0] != 0) return RefOverlap::OTHER;
    full[0] = storage / e.strides[0];
    uint64_t in_off[MAX_TENSOR_DIMS] = {}, e_off[MAX_TENSOR_DIMS] = {};
    uint64_t in_rem = in.start_offset, e_rem = e.start_offset;
    for (uint32_t i = 0; i < n; ++i) {
        in_off[i] = in_rem / e.strides[i];
        in_rem %= e.strides[i];
        e_off[i] = e_rem / e.strides[i];
        e_rem %= e.strides[i];
    }
    if (in_rem != 0 || e_rem != 0) return RefOverlap::OTHER;
    for (uint32_t i = 0; i < n; ++i)
        if (in_off[i] + in.shapes[i] > full[i] || e_off[i] + e.shapes[i] > full[i]) return RefOverlap::OTHER;
    bool covers = true;
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t a0 = in_off[i], a1 = in_off[i] + in.shapes[i];
        const uint64_t b0 = e_off[i], b1 = e_off[i] + e.shapes[i];
        if (!(a1 > b0 && b1 > a0)) return RefOverlap::NONE;
        if (!(a0 <= b0 && b1 <= a1)) covers = false;
    }
    return covers ? RefOverlap::COVERED : RefOverlap::OTHER;
}

void RaceChecker::on_submit(uint64_t seq, const std::vector<ChipTensor>& tensors,
                            const std::vector<TensorArgType>& tags, const std::vector<int64_t>& owner_seq,
                            const std::vector<uint64_t>& deps, bool manual_scope) {
    while (tasks_.size() <= seq) tasks_.emplace_back();
    TaskRec& t = tasks_[seq];
    t.tags = tags;
    std::set<uint64_t> preds;
    for (uint64_t d : deps)
        if (d < seq) preds.insert(d);
    if (!manual_scope) {
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            if (tags[i] == TensorArgType::OUTPUT) continue;  // a fresh buffer: nothing to wait for
            if (owner_seq[i] >= 0 && static_cast<uint64_t>(owner_seq[i]) < seq) preds.insert(static_cast<uint64_t>(owner_seq[i]));
            if (tags[i] != TensorArgType::INPUT && tags[i] != TensorArgType::INOUT) continue;
            const ChipTensor& ct = tensors[i];
            if (ct.manual_dep) continue;
            auto it = writers_.find(ct.buffer.addr);
            if (it == writers_.end()) continue;
            for (Writer& w : it->second) {
                if (!w.live) continue;
                const RefOverlap o = reference_overlap(ct, w.view);
                if (o == RefOverlap::NONE) continue;
                preds.insert(w.task);
                if (tags[i] == TensorArgType::INOUT && o == RefOverlap::COVERED) w.live = false;
            }
        }
        for (std::size_t i = 0; i < tensors.size(); ++i)
            if ((tags[i] == TensorArgType::INOUT || tags[i] == TensorArgType::OUTPUT_EXISTING) && !tensors[i].manual_dep) {
                auto& list = writers_[tensors[i].buffer.addr];
                list.erase(std::remove_if(list.begin(), list.end(), [](const Writer& w) { return !w.live; }), list.end());
                list.push_back(Writer{tensors[i], seq, true});
            }
    }
    t.ancestors.assign(static_cast<std::size_t>(seq / 64 + 1), 0);
    for (uint64_t p : preds) {
        const TaskRec& pr = tasks_[p];
        for (std::size_t w = 0; w < pr.ancestors.size(); ++w) t.ancestors[w] |= pr.ancestors[w];
        t.ancestors[p / 64] |= uint64_t{1} << (p % 64);
    }
}

void RaceChecker::on_touches(uint64_t seq, const std::vector<GmTouch>& touches) {
    while (tasks_.size() <= seq) tasks_.emplace_back();
    auto& list = tasks_[seq].touches;
    for (const GmTouch& g : touches) {
        // A loop reads / writes the same bytes again and again: keep one record of each.
        bool dup = false;
        for (std::size_t k = list.size() >= 8 ? list.size() - 8 : 0; k < list.size() && !dup; ++k)
            dup = list[k].write == g.write && list[k].arg == g.arg && list[k].region.same_as(g.region);
        if (!dup) list.push_back(g);
    }
}

bool RaceChecker::ordered(uint64_t earlier, uint64_t later) const {
    if (later >= tasks_.size()) return false;
    const auto& a = tasks_[later].ancestors;
    const std::size_t w = static_cast<std::size_t>(earlier / 64);
    return w < a.size() && (a[w] >> (earlier % 64) & 1u);
}

std::vector<RaceReport> RaceChecker::find_races(std::size_t limit) const {
    // Per buffer, the touches of each task.
    std::map<uint64_t, std::vector<std::pair<uint64_t, const GmTouch*>>> by_buffer;
    for (uint64_t s = 0; s < tasks_.size(); ++s)
        for (const GmTouch& g : tasks_[s].touches) by_buffer[g.region.buffer].emplace_back(s, &g);
    std::vector<RaceReport> out;
    std::set<std::pair<uint64_t, uint64_t>> seen;
    for (auto& [buf, list] : by_buffer) {
        (void)buf;
        for (std::size_t i = 0; i < list.size(); ++i) {
            for (std::size_t j = i + 1; j < list.size(); ++j) {
                const auto& [sa, a] = list[i];
                const auto& [sb, b] = list[j];
                if (sa == sb || !(a->write || b->write)) continue;
                const uint64_t first = std::min(sa, sb), second = std::max(sa, sb);
                if (ordered(first, second) || seen.count({first, second})) continue;
                if (!regions_overlap(a->region, b->region)) continue;
                seen.insert({first, second});
                const GmTouch& fa = sa == first ? *a : *b;
                const GmTouch& fb = sa == first ? *b : *a;
                auto lo_of = [](const Region& r) { return r.buffer + r.start * r.elem_size; };
                auto hi_of = [](const Region& r) { return r.buffer + (r.start + r.extent()) * r.elem_size; };
                out.push_back(RaceReport{first, second, fa, fb, std::max(lo_of(fa.region), lo_of(fb.region)),
                                         std::min(hi_of(fa.region), hi_of(fb.region))});
                if (out.size() >= limit) goto done;
            }
        }
    }
done:
    std::sort(out.begin(), out.end(), [](const RaceReport& x, const RaceReport& y) {
        return std::tie(x.first_task, x.second_task) < std::tie(y.first_task, y.second_task);
    });
    return out;
}

}  // namespace pypto_rt
