fn main() -> std::process::ExitCode {
    agentguard::run()
}
