/// mimalloc instead of glibc's malloc: `serve` makes a few hundred small allocations a tool call
/// (docs/performance.md has the measurements).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    mcpgen::main()
}
