//! The one integration-test binary: every test runs the real `agentguard` binary in an
//! isolated environment (see `support::Env`).

mod architecture;
mod completions;
mod config;
mod corpus;
mod doctor;
mod e2e;
mod eval;
mod evidence;
mod fake_api;
mod hooks;
mod install;
mod install_sh;
mod judge;
mod launch;
mod logs;
mod peers;
mod redact;
mod release_fixture;
mod self_update;
mod snapshots;
mod support;
mod trust;
