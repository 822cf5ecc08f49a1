//! The one integration-test binary: every test runs the real `agentguard` binary in an
//! isolated environment (see `support::Env`).

mod redact;
mod support;
