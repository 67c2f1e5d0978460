// The process around a run: its standard descriptors and its signals.
#pragma once

namespace tslice_cli {

// Called first, before anything is opened: a closed standard descriptor is opened on
// /dev/null, and the signals that would end the process remove the pending temporary output
// first (SIGBUS from a mapped input that shrank is one message and exit 1).
void set_up_process();

}  // namespace tslice_cli
