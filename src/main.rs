fn main() {
    std::process::exit(sbc_bench::app::main());
}
