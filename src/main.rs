fn main() -> std::process::ExitCode {
    mcpgen::main()
}
