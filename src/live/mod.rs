//! Real-time driving of modules (scene advance, viewer, input device) with a fixed timestep
//! taken from a time bank.
