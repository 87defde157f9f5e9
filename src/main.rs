fn main() -> std::process::ExitCode {
    mcpgen::cli::main()
}
