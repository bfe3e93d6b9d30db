// pypto CPU runtime: the header generated kernels are compiled against, precompiled once per SoC
// by pypto's own build (CMakeLists.txt, target pypto_kernel_pch) and passed to kernel compiles as
// `-include .../pch/<soc>/pypto_kernel_pch.h`. It holds exactly what a generated kernel includes
// (templates/kernel_prologue.cpp.in), so the kernel's own #includes become no-ops; when GCC finds
// the .gch unusable (other compiler version or flags) it reads this file as plain text instead.
#include <cstdint>

#include <pto/pto-inst.hpp>
#include "tensor.h"
