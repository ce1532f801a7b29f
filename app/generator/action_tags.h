// SPDX-License-Identifier: Apache-2.0
// The coverage bins each kind of generated action can hit (gen::Tags): what --focus and
// --weights aim the generator's choices with (actions.cpp, object_actions.cpp).
#pragma once

#include "app/generator/impl.h"

namespace rnic::app::gen {

const Tags& healthy_tags();
const Tags& flushed_tags();
Tags join(Tags a, const Tags& b);
const Tags& read_tags();
const Tags& write_tags();
const Tags& send_tags();
const Tags& bind_tags();
const Tags& invalidate_tags();
const Tags& fast_register_tags();
const Tags& registration_tags();

}  // namespace rnic::app::gen
