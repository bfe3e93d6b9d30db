// Umbrella header: the whole IR data model (types, expressions, statements, functions, programs).
#pragma once

#include "ir/attr.h"
#include "ir/diagnostic.h"
#include "ir/dtype.h"
#include "ir/enums.h"
#include "ir/expr.h"
#include "ir/function.h"
#include "ir/op_registry.h"
#include "ir/span.h"
#include "ir/stmt.h"
#include "ir/type.h"
