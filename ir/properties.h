// IR properties: facts a pass requires or establishes (SSA form, memory spaces inferred, ...).
// Each pass declares required/produced/invalidated sets; the pipeline runner checks produced
// properties with the verifier (ir/verifier.h) between passes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace pypto::ir {

enum class Property : uint8_t {
  TypeChecked,              // every expression's type is consistent with its operands
  UseAfterDef,              // every use is dominated by its definition
  NoRedundantBlocks,        // no nested / single-child SeqStmts
  SSAForm,                  // single assignment, loop/if carries explicit
  NoNestedCall,             // three-address form: call args are vars/constants/tuples of them
  SplitIncoreOrch,          // no InCore scopes left inside orchestration functions
  TileOpsOnly,              // no tensor.* compute ops inside kernels (tensor → tile done)
  TileMemoryInferred,       // every tile has a memory space
  MixedKernelExpanded,      // no InCore functions remain: only AIC / AIV (/ Group)
  ReturnParamsExplicit,     // kernel return[i] is the i-th Out/InOut param
  TensorStridesMaterialized,// every TensorView has explicit strides
  HasMemRefs,               // every tile / tensor var has a MemRef
  AllocatedMemoryAddr,      // every on-chip MemRef has a constant address within capacity
  CallDirectionsResolved,   // every call to a function carries arg_directions
  PipeSyncInserted,         // kernels carry explicit set_flag / wait_flag / barriers
  RuntimeScopesMaterialized,// orchestration bodies wrapped in runtime scopes
  TensorAllocsPlanned,      // every orchestration tensor.create names its alloc_tensors batch
  IterArgCarryClassified,   // every orchestration loop carry marked alias or rebind (IterArg::rebind)
  kCount
};

std::string_view to_string(Property p);

class PropertySet {
 public:
  PropertySet() = default;
  PropertySet(std::initializer_list<Property> ps) {
    for (auto p : ps) insert(p);
  }
  void insert(Property p) { bits_ |= bit(p); }
  void erase(Property p) { bits_ &= ~bit(p); }
  bool contains(Property p) const { return (bits_ & bit(p)) != 0; }
  bool contains_all(const PropertySet& o) const { return (bits_ & o.bits_) == o.bits_; }
  PropertySet operator|(const PropertySet& o) const { PropertySet r; r.bits_ = bits_ | o.bits_; return r; }
  PropertySet operator-(const PropertySet& o) const { PropertySet r; r.bits_ = bits_ & ~o.bits_; return r; }
  bool empty() const { return bits_ == 0; }
  std::vector<Property> list() const {
    std::vector<Property> v;
    for (int i = 0; i < int(Property::kCount); ++i)
      if (contains(Property(i))) v.push_back(Property(i));
    return v;
  }
  bool operator==(const PropertySet&) const = default;

 private:
  static uint64_t bit(Property p) { return uint64_t(1) << unsigned(p); }
  uint64_t bits_ = 0;
};

}  // namespace pypto::ir
