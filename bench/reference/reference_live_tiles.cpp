// Reference loops for e2e_live_tiles.py: the math each kernel documents, on [16, 32] FP32 inputs,
// for a given runtime scalar n (the program cases run n = 3 and n = 1).
#include <utility>

#include "reference/reference.h"

namespace pypto::e2e {

Arrays live_tiles_reference(const Arrays& in, int n) {
  const auto& x = in.at("x");
  const auto& y = in.at("y");
  const size_t count = x.size();
  std::vector<float> body(count), after(count), carry(count), swapped(count), picked(count), aliased(count),
      written(count, 0.0f);
  for (size_t i = 0; i < count; ++i) {
    float acc = x[i];
    for (int k = 0; k < 4; ++k) acc += x[i];
    body[i] = acc;

    acc = x[i];
    for (int k = 0; k < 4; ++k) acc += y[i];
    after[i] = acc + x[i];

    acc = x[i];
    float cnt = 0.0f;
    for (int k = 0; k < 3; ++k) {
      const float next = acc + 1.0f;
      cnt += next - acc;
      acc = next;
    }
    carry[i] = cnt + acc;

    float p = x[i], q = y[i];
    for (int k = 0; k < 3; ++k) std::swap(p, q);
    swapped[i] = 2.0f * p - q;

    picked[i] = n > 2 ? x[i] : y[i];
    aliased[i] = (n > 2 ? 2.0f * x[i] : x[i]) + x[i];
  }
  written[0] = 100.0f - x[0];
  return {{"body", body},     {"after", after},     {"carry", carry},   {"swapped", swapped},
          {"picked", picked}, {"aliased", aliased}, {"written", written}};
}

}  // namespace pypto::e2e
